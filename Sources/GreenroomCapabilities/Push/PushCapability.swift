import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Push notifications, around the sender the outbox delivers through: who is connected
/// (a presence entry per connection on `online:<user>`, kept only when push is set up), the
/// members' per-channel option, and the app's template.
package struct PushCapability: Capability {
    package let settings: PushSettings
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let roster: Roster
    package let online = OnlineConnections()

    package init(_ core: CapabilityContext) {
        settings = core.configuration.push
        storage = core.storage
        events = core.events
        roster = core.roster
        if settings.isEnabled {
            core.deliveries.add(PushSender(settings: settings, storage: storage, events: events, http: core.outbound.apns,
                                             metrics: core.metrics.push, logger: core.logger))
        }
    }

    package var streamKind: StreamKind? { StreamKind(rawValue: "online") }
    package var rosterOwner: (any RosterOwner)? { OnlineRoster() }

    /// Lists the connection on its user's `online:` stream (when push is set up).
    package func connectionStarted(userId: String, clientId: String) {
        guard settings.isEnabled else { return }
        let entry = PresenceEntry(stream: PushSender.onlineStream(userId), clientId: clientId, userId: userId, data: .dictionary([:]),
                                  joinedAt: Date.wireNow, expiresAt: Date().addingTimeInterval(roster.ttl), node: roster.nodeId)
        online.started(clientId: clientId, userId: userId) { [events] in
            _ = try? await events.transact { transaction in try await transaction.putPresence(entry) }
        }
    }

    /// Takes the connection off its user's `online:` stream, after it was put there.
    package func connectionEnded(clientId: String) async {
        guard let (userId, listed) = online.ended(clientId: clientId) else { return }
        await listed.value
        _ = try? await events.transact { transaction in
            try await transaction.removePresence(stream: PushSender.onlineStream(userId), clientId: clientId)
        }
    }

    /// `chat.setPushTrigger`, `chat.getPushTrigger`: a joined member's own option per channel.
    package func registerOperations(_ router: inout CapabilityOperations) {
        let events = events, storage = storage
        router.on(PushOperation.setTrigger) { (caller, args: PushTriggerArgs) -> EmptyResult in
            let userId = caller.identity.userId
            try await events.transact { transaction in
                guard let member = try await transaction.load(MemberRecord.self, scope: args.channelId.rawValue, id: userId),
                      member.member.state == .joined else {
                    throw GreenroomError(.notChannelMember, "\(userId) has not joined \(args.channelId.rawValue)")
                }
                switch args.option {
                case .off, .mentionOnly:
                    try await transaction.save(PushMuteRecord(userId: userId, channelId: args.channelId.rawValue,
                                                              mentionsOnly: args.option == .mentionOnly ? true : nil))
                case .all:
                    try await transaction.remove(PushMuteRecord.self, scope: userId, id: args.channelId.rawValue)
                }
            }
            return EmptyResult()
        }
        router.on(PushOperation.getTrigger) { (caller, args: ChannelRef) -> PushTriggerArgs in
            let mute = try await storage.load(PushMuteRecord.self, scope: caller.identity.userId, id: args.channelId.rawValue)
            let option: PushTriggerOption = mute == nil ? .all : mute?.mentionsOnly == true ? .mentionOnly : .off
            return PushTriggerArgs(channelId: args.channelId, option: option)
        }
    }

}

/// The `online:` entries this node wrote, by connection, with the write in flight: a
/// connection's removal waits for its listing.
package final class OnlineConnections: Sendable {
    private let listed = Locked<[String: (userId: String, task: Task<Void, Never>)]>([:])

    package func started(clientId: String, userId: String, _ write: @escaping @Sendable () async -> Void) {
        listed.withLock { $0[clientId] = (userId, Task { await write() }) }
    }

    package func ended(clientId: String) -> (userId: String, task: Task<Void, Never>)? {
        listed.withLock { $0.removeValue(forKey: clientId) }
    }
}

/// The `online:` entries' owner: an entry of a dead node expires with nothing to announce.
package struct OnlineRoster: RosterOwner {
    package func connectionClosed(_ entry: PresenceEntry) async throws {}
    package func expired(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {}
}
