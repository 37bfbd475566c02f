import Foundation
import GreenroomProtocol
import Hummingbird
import Logging
import ServiceLifecycle

/// One product capability (chat, live events, meetings, videos, users, app streams): the
/// kind of stream it owns and who may read it, its WebSocket operations, its REST routes,
/// its roster hooks and its background work, declared in one place.
///
/// The core knows capabilities only through this protocol and the one list in
/// ``ServerCore`` that registers them; adding one touches the core nowhere else.
protocol Capability: Sendable {
    /// The kind of the streams it owns, if it owns any.
    var streamKind: StreamKind? { get }
    /// Throws the refusal when `identity` may not read the stream `id` of ``streamKind``.
    func authorizeRead(_ identity: Identity, streamId id: String) async throws
    /// Registers its WebSocket operations.
    func registerOperations(_ router: inout CapabilityOperations)
    /// Adds its REST routes.
    func addRoutes(_ routes: RestRoutes)
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
    var streamKind: StreamKind? { nil }
    func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        throw GreenroomError(.permissionDenied, "streams of this kind cannot be followed")
    }
    func registerOperations(_ router: inout CapabilityOperations) {}
    func addRoutes(_ routes: RestRoutes) {}
    var rosterOwner: (any RosterOwner)? { nil }
    var services: [any Service] { [] }
    func connectionStarted(userId: String, clientId: String) {}
    func connectionEnded(clientId: String) async {}
}

/// What the core lends every capability: storage and its one transactional path, the
/// roster, the settings, and the calls that reach connections.
struct CoreServices: Sendable {
    let configuration: ServerConfiguration
    let storage: any GreenroomStorage
    /// The node's writer: every change goes through its transactions with its events.
    let events: EventLog
    let roster: Roster
    let logger: Logger
    /// The node's metrics, for the capabilities that add their own.
    let metrics: ServerMetrics
    /// The media control plane: rooms on the SFU, with the rules of their owners.
    let media: MediaPlane
    /// The SFU the media plane uses, and the services that keep it.
    let mediaBackend: MediaBackend
    /// The HLS livestreams of meetings and live events that this node runs.
    let livestreams: LivestreamEngine
    /// Delivers the outbox's jobs: a capability adds the destinations it keeps.
    let deliveries: OutboxDispatcher
    /// What each capability removes of a user deleted, in the deletion's transaction.
    let userDeletion = UserDeletionHooks()
}

/// A user's deletion as the capabilities see it: whose, and what the app's backend asked
/// to erase with it.
struct UserDeletion: Sendable {
    let userId: String
    /// Whether the user's chat messages are erased too (`?messages=erase`): each is deleted
    /// as `message.delete` deletes one.
    var eraseMessages = false
}

/// What capabilities remove when a user is deleted: each registers, as it is made, a step
/// that runs in the deletion's transaction (chat drops the user's memberships,
/// invitations and operator roles, and tells the channels; the core removes its roster
/// and presence entries). A step may return work to run once the deletion committed.
final class UserDeletionHooks: Sendable {
    typealias AfterCommit = @Sendable () -> Void
    typealias Hook = @Sendable (_ deletion: UserDeletion, _ transaction: any StorageTransaction) async throws -> AfterCommit?
    private let hooks = Locked<[Hook]>([])

    /// Adds a step to every user's deletion.
    func add(_ hook: @escaping Hook) { hooks.withLock { $0.append(hook) } }

    /// Runs every step for `deletion` in `transaction`; returns what is to run after commit.
    func run(_ deletion: UserDeletion, in transaction: any StorageTransaction) async throws -> [AfterCommit] {
        var after: [AfterCommit] = []
        for hook in hooks.withLock({ $0 }) {
            if let work = try await hook(deletion, transaction) { after.append(work) }
        }
        return after
    }
}

/// The REST router as a capability sees it: open routes on ``router``; routes for a
/// caller in a ``group(_:for:)``, whose middleware authenticates each request before the
/// handler and puts the caller in the context; ``resourceTokens`` for the URLs of files.
/// A capability never authenticates a request itself.
struct RestRoutes {
    let router: Router<GreenroomRequestContext>
    /// Issues the short-lived tokens, good for one resource's files, that file URLs carry.
    let resourceTokens: any ResourceTokenIssuer
    private let authentication: any RestAuthentication

    init(router: Router<GreenroomRequestContext>, authentication: any RestAuthentication, resourceTokens: any ResourceTokenIssuer) {
        self.router = router
        self.resourceTokens = resourceTokens
        self.authentication = authentication
    }

    /// The routes under `path` that `access` may call (several groups may share a path).
    func group(_ path: RouterPath, for access: RestAccess) -> RouterGroup<GreenroomRequestContext> {
        router.group(path).add(middleware: RestAccessMiddleware(access: access, authentication: authentication))
    }
}

/// How REST requests prove who they are: the app's backend with the server API key, a
/// user with a client token. Only ``RestAccessMiddleware`` asks.
protocol RestAuthentication: Sendable {
    /// Checks the server API key (`Authorization: Bearer KEY`).
    func requireAPIKey(_ request: Request) throws
    /// The identity of the request's token (`Authorization: Bearer TOKEN` or `?token=`).
    func authenticate(_ request: Request) async throws -> Identity
    /// The app's backend (``Identity/backend``) when `Authorization` carries the API key,
    /// else the identity of the request's token.
    func authenticateUserOrBackend(_ request: Request) async throws -> Identity
}

/// Issues tokens scoped to one resource's files (a playlist and its segments).
protocol ResourceTokenIssuer: Sendable {
    /// A token for `identity` good for `ttl` seconds and only for paths under `scope` (a
    /// playlist's files), with the grants reading them needs.
    func resourceToken(for identity: Identity, scope: String, ttl: TimeInterval) async throws -> String
}
