import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Push notifications, around the sender the outbox delivers through (it skips users who
/// are connected: ``OnlineCapability`` lists their connections), the members' per-channel
/// option, and the app's template.
package struct PushCapability: Capability {
    package let settings: PushSettings
    package let storage: any GreenroomStorage
    package let events: EventLog

    package init(_ core: CapabilityContext) {
        settings = core.configuration.push
        storage = core.storage
        events = core.events
        if settings.isEnabled {
            core.deliveries.add(PushSender(settings: settings, storage: storage, events: events, http: core.outbound.apns,
                                             metrics: core.metrics.push, logger: core.logger))
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
