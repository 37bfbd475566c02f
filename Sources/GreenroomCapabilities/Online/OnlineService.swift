import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A user's online state across nodes: online while it has an entry on `online:<user>`;
/// the change from none to one and from one to none is relayed to its channels as a
/// signal (``OnlineSignal/presenceChanged``) and stamps its last activity.
package struct OnlineService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    /// Whether changes are announced and activity kept (`GREENROOM_ONLINE_STATE`).
    package let announces: Bool
    /// Users whose last entry expired in a transaction not yet committed.
    private let leaving = Locked<Set<String>>([])

    package init(storage: any GreenroomStorage, events: EventLog, announces: Bool) {
        self.storage = storage
        self.events = events
        self.announces = announces
    }

    /// Lists a new connection; the user's first makes it online.
    func connected(_ entry: PresenceEntry) async {
        let now = Date.wireNow
        let first = try? await events.transact { transaction -> Bool in
            try await transaction.putPresence(entry)
            guard announces else { return false }
            try await transaction.save(UserActivityRecord(userId: entry.userId, lastActiveAt: now))
            return try await transaction.presenceCount(stream: entry.stream, clientIdPrefix: "") == 1
        }
        if first == true { await announce(UserPresence(userId: entry.userId, online: true, lastActiveAt: now)) }
    }

    /// Takes a closed connection off; the user's last makes it offline.
    func disconnected(userId: String, clientId: String) async {
        let last = try? await events.transact { transaction -> Bool in
            try await transaction.removePresence(stream: OnlineCapability.stream(userId), clientId: clientId)
            return try await left(userId, in: transaction)
        }
        if last == true { announceOffline(userId) }
    }

    /// After an entry of `userId` went in `transaction`: when it was the last, stamps the
    /// user's activity and returns `true` (``announceOffline(_:)`` follows the commit).
    @discardableResult
    func left(_ userId: String, in transaction: any StorageTransaction) async throws -> Bool {
        guard announces, try await transaction.presenceCount(stream: OnlineCapability.stream(userId), clientIdPrefix: "") == 0 else { return false }
        try await transaction.save(UserActivityRecord(userId: userId, lastActiveAt: Date.wireNow))
        leaving.withLock { _ = $0.insert(userId) }
        return true
    }

    /// Announces a user offline once its last entry's removal committed.
    func announceOffline(_ userId: String) {
        guard leaving.withLock({ $0.remove(userId) }) != nil else { return }
        Task { [self] in
            // A connection that came back meanwhile made the user online again.
            guard (try? await storage.presenceCount(stream: OnlineCapability.stream(userId), clientIdPrefix: "")) == 0 else { return }
            let activity = try? await storage.load(UserActivityRecord.self, id: userId)
            await announce(UserPresence(userId: userId, online: false, lastActiveAt: activity?.lastActiveAt ?? Date.wireNow))
        }
    }

    /// Relays a change as a signal on the streams of the user's most recently active
    /// joined channels, those small enough (``Limits/maxPresenceSignalMembers``): in a big
    /// one, members coming online together would cost the square of its size.
    private func announce(_ presence: UserPresence) async {
        var query = RecordQuery(kind: ChannelRecord.recordKind, limit: Limits.maxPresenceChannels)
        query.via = (MembershipRecord.recordKind, presence.userId, [ChatMemberState.joined.rawValue])
        query.descending = true
        guard let channels = try? await storage.list(ChannelRecord.self, query), let data = try? RawJSON(encoding: presence) else { return }
        let at = Date.wireNow
        for channel in channels where channel.channel.memberCount <= Limits.maxPresenceSignalMembers {
            events.signal(StreamSignal(stream: channel.channel.stream, type: OnlineSignal.presenceChanged, data: data, at: at))
        }
    }

    /// Each user's online state (`user.presence`); an unknown user reads as offline,
    /// never seen. - Throws: `invalidParameterValue` for 0 or more than 100 ids.
    package func presence(of userIds: [String]) async throws -> [UserPresence] {
        guard (1...Limits.maxPageSize).contains(userIds.count) else {
            throw GreenroomError(.invalidParameterValue, "userIds must hold 1–\(Limits.maxPageSize) ids")
        }
        var answer: [UserPresence] = []
        for userId in userIds {
            guard Limits.isValidId(userId) else { throw GreenroomError(.invalidParameterValue, "\(userId) is not a valid user id") }
            let online = try await storage.presenceCount(stream: OnlineCapability.stream(userId), clientIdPrefix: "") > 0
            let activity = try await storage.load(UserActivityRecord.self, id: userId)
            answer.append(UserPresence(userId: userId, online: online, lastActiveAt: activity?.lastActiveAt))
        }
        return answer
    }
}
