import Foundation
import GreenroomProtocol

extension ChatChannelController {
    /// Sets whether the connected member is pushed this channel's messages while the app is
    /// not connected (Sendbird's `setMyPushTriggerOption(_:)`): `.off` mutes the channel's
    /// notifications, `.mentionOnly` keeps those of messages that mention the member, `.all`
    /// brings them all back. The member must have joined the channel.
    public func setMyPushTriggerOption(_ option: PushTriggerOption) async throws {
        let _: EmptyResult = try await client.send(PushOperation.setTrigger, args: PushTriggerArgs(channelId: channelId, option: option))
    }

    /// The completion-handler form of ``setMyPushTriggerOption(_:)``; `completion` runs on the main actor.
    public func setMyPushTriggerOption(_ option: PushTriggerOption, completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { try await self.setMyPushTriggerOption(option) }
    }

    /// The connected member's push option for this channel (`.all` unless changed).
    public func myPushTriggerOption() async throws -> PushTriggerOption {
        try await client.send(PushOperation.getTrigger, args: ChannelRef(channelId: channelId)).option
    }
}
