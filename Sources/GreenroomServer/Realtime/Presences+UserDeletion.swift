import Foundation
import GreenroomProtocol

extension Presences {
    /// A deleted user's roster and presence entries, removed in its deletion's transaction:
    /// each roster entry's capability hears it as an expiry (a meeting's participant has
    /// left, a live event's host has exited, its member records go with it), and an app
    /// presence stream hears `presence.left` with the reason `deleted`. - Returns: what the
    /// capabilities do once the deletion committed.
    static func removeEntries(of userId: String, owners: [StreamKind: any Capability],
                              in transaction: any StorageTransaction) async throws -> UserDeletionHooks.AfterCommit? {
        var expired: [(owner: any RosterOwner, entry: PresenceEntry)] = []
        for entry in try await transaction.presence(userId: userId) {
            guard let gone = try await transaction.removePresence(stream: entry.stream, clientId: entry.clientId) else { continue }
            if let owner = owners[StreamKind(of: gone.stream)]?.rosterOwner {
                try await owner.userDeleted(gone, in: transaction)
                expired.append((owner, gone))
            } else {
                _ = try await transaction.append([left(gone, reason: "deleted")])
            }
        }
        guard !expired.isEmpty else { return nil }
        let done = expired
        return { for (owner, entry) in done { owner.didExpire(entry) } }
    }
}
