import GreenroomProtocol
import GreenroomStorage

/// A user's deletion as the capabilities see it: whose, and what the app's backend asked
/// to erase with it.
package struct UserDeletion: Sendable {
    package let userId: String
    /// Whether the user's chat messages are erased too (`?messages=erase`): each is deleted
    /// as `message.delete` deletes one.
    package var eraseMessages = false

    /// The deletion of `userId`, with or without its chat messages.
    package init(userId: String, eraseMessages: Bool = false) {
        self.userId = userId
        self.eraseMessages = eraseMessages
    }
}

/// What capabilities remove when a user is deleted: each registers, as it is made, a step
/// that runs in the deletion's transaction (chat drops the user's memberships,
/// invitations and operator roles, and tells the channels; the core removes its roster
/// and presence entries). A step may return work to run once the deletion committed.
package final class UserDeletionHooks: Sendable {
    package typealias AfterCommit = @Sendable () -> Void
    package typealias Hook = @Sendable (_ deletion: UserDeletion, _ transaction: any StorageTransaction) async throws -> AfterCommit?
    private let hooks = Locked<[Hook]>([])

    /// No steps yet.
    package init() {}

    /// Adds a step to every user's deletion.
    package func add(_ hook: @escaping Hook) { hooks.withLock { $0.append(hook) } }

    /// Runs every step for `deletion` in `transaction`; returns what is to run after commit.
    package func run(_ deletion: UserDeletion, in transaction: any StorageTransaction) async throws -> [AfterCommit] {
        var after: [AfterCommit] = []
        for hook in hooks.withLock({ $0 }) {
            if let work = try await hook(deletion, transaction) { after.append(work) }
        }
        return after
    }
}
