import GreenroomProtocol
import ServiceLifecycle

/// One product capability (chat, live events, meetings, videos, users, app streams): the
/// kind of stream it owns and who may read it, its WebSocket operations, its roster hooks
/// and its background work, declared in one place (its REST routes, written for the HTTP
/// server, are the server's `CapabilityRoutes`).
///
/// The core knows capabilities only through this protocol and the one list in the
/// composition root that registers them; adding one touches the core nowhere else.
package protocol Capability: Sendable {
    /// The kind of the streams it owns, if it owns any.
    var streamKind: StreamKind? { get }
    /// Throws the refusal when `identity` may not read the stream `id` of ``streamKind``.
    func authorizeRead(_ identity: Identity, streamId id: String) async throws
    /// Registers its WebSocket operations.
    func registerOperations(_ router: inout CapabilityOperations)
    /// Told when a roster entry on its streams loses its connection or expires; `nil` when
    /// it keeps no roster.
    var rosterOwner: (any RosterOwner)? { get }
    /// Its background work, run with the server's services and stopped with them.
    var services: [any Service] { get }
    /// Told, on the connection's event loop, when a client's connection on this node has
    /// opened (work it starts must not block the loop).
    func connectionStarted(userId: String, clientId: String)
    /// Told when a client's connection on this node has closed (after its rosters were
    /// handed over), to let go of what it held for it.
    func connectionEnded(clientId: String) async
}

extension Capability {
    package var streamKind: StreamKind? { nil }
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        throw GreenroomError(.permissionDenied, "streams of this kind cannot be followed")
    }
    package func registerOperations(_ router: inout CapabilityOperations) {}
    package var rosterOwner: (any RosterOwner)? { nil }
    package var services: [any Service] { [] }
    package func connectionStarted(userId: String, clientId: String) {}
    package func connectionEnded(clientId: String) async {}
}
