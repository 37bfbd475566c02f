import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Users: the profile every other capability refers to, read and changed by the user itself
/// over the WebSocket and by the app's backend over REST; each user's private stream
/// (`user:<id>`) announces its changes and what concerns only it.
package struct UsersCapability: Capability {
    package let service: UserService

    package init(_ core: CapabilityContext) {
        service = UserService(storage: core.storage, events: core.events, deletion: core.userDeletion)
    }

    package var streamKind: StreamKind? { .user }

    /// A user reads its own private stream, nobody else's.
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        guard id == identity.userId else {
            throw GreenroomError(.permissionDenied, "only \(id) may read its private stream")
        }
    }
}
