import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Who is connected: a presence entry per connection on `online:<user>` (kept when online
/// state or push is on), whose first and last entries announce the user online and
/// offline to its channels as a signal; `user.presence` reads it. Push reads the entries
/// to skip users who are connected.
package struct OnlineCapability: Capability {
    package let service: OnlineService
    /// Whether connections are listed at all (online state or push needs them).
    private let enabled: Bool
    private let roster: Roster
    private let connections = OnlineConnections()

    /// The stream a user's connections are listed on.
    package static func stream(_ userId: String) -> String { "online:\(userId)" }

    package init(_ core: CapabilityContext) {
        service = OnlineService(storage: core.storage, events: core.events, announces: core.configuration.onlineState)
        enabled = core.configuration.onlineState || core.configuration.push.isEnabled
        roster = core.roster
        core.userDeletion.add { deletion, transaction in
            try await transaction.remove(UserActivityRecord.self, id: deletion.userId)
            return nil
        }
    }

    package var streamKind: StreamKind? { StreamKind(rawValue: "online") }
    package var rosterOwner: (any RosterOwner)? { OnlineRoster(service: service) }

    /// Lists the connection on its user's `online:` stream.
    package func connectionStarted(userId: String, clientId: String) {
        guard enabled else { return }
        let entry = PresenceEntry(stream: Self.stream(userId), clientId: clientId, userId: userId, data: .dictionary([:]),
                                  joinedAt: Date.wireNow, expiresAt: Date().addingTimeInterval(roster.ttl), node: roster.nodeId)
        connections.started(clientId: clientId, userId: userId) { [service] in await service.connected(entry) }
    }

    /// Takes the connection off its user's `online:` stream, after it was put there.
    package func connectionEnded(clientId: String) async {
        guard let (userId, listed) = connections.ended(clientId: clientId) else { return }
        await listed?.value
        await service.disconnected(userId: userId, clientId: clientId)
    }

    /// `user.presence`.
    package func registerOperations(_ router: inout CapabilityOperations) {
        let service = service
        router.on(UserOperation.presence) { (_, args: UserPresenceArgs) -> [UserPresence] in
            try await service.presence(of: args.userIds)
        }
    }
}

/// When a user was last active: its last connection's start or end, in the top scope.
package struct UserActivityRecord: StoredRecord {
    package static let recordKind = "user-activity"
    package var userId: String
    package var lastActiveAt: Date

    package var recordId: String { userId }
}

/// The `online:` entries this node wrote, by connection, with the write while it is in
/// flight: a connection's removal waits for its listing. A finished write is let go, so
/// that an idle connection holds its user id here and nothing more.
package final class OnlineConnections: Sendable {
    private let listed = Locked<[String: (userId: String, task: Task<Void, Never>?)]>([:])

    package func started(clientId: String, userId: String, _ write: @escaping @Sendable () async -> Void) {
        listed.withLock { listed in
            listed[clientId] = (userId, Task {
                await write()
                self.listed.withLock { listed in
                    if listed[clientId] != nil { listed[clientId]?.task = nil }
                }
            })
        }
    }

    package func ended(clientId: String) -> (userId: String, task: Task<Void, Never>?)? {
        listed.withLock { $0.removeValue(forKey: clientId) }
    }
}

/// The `online:` entries' owner: a dead node's last entry of a user makes it offline.
package struct OnlineRoster: RosterOwner {
    let service: OnlineService

    package func connectionClosed(_ entry: PresenceEntry) async throws {}

    package func expired(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {
        try await service.left(entry.userId, in: transaction)
    }

    package func didExpire(_ entry: PresenceEntry) {
        service.announceOffline(entry.userId)
    }

    package func userDeleted(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {}
}
