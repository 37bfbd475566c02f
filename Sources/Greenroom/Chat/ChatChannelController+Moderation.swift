import Foundation

extension ChatChannelController {
    // MARK: Moderation (operators)

    /// Freezes the channel (Sendbird's `freeze`): only operators send until
    /// ``unfreeze()``; the others get `channelFrozen`. Operators only.
    @discardableResult
    public func freeze() async throws -> ChatChannel {
        try await client.send(ChatOperation.freeze, args: FreezeArgs(channelId: channelId, frozen: true))
    }

    /// Unfreezes the channel. Operators only.
    @discardableResult
    public func unfreeze() async throws -> ChatChannel {
        try await client.send(ChatOperation.freeze, args: FreezeArgs(channelId: channelId, frozen: false))
    }

    /// Sets slow mode (Stream's `cooldown`): a member who is not an operator waits
    /// `seconds` between its messages (0 ends it); a message too soon gets
    /// `slowModeActive` with `retryAfterMs`. Operators only.
    @discardableResult
    public func setSlowMode(seconds: Int) async throws -> ChatChannel {
        try await client.send(ChatOperation.setSlowMode, args: SlowModeArgs(channelId: channelId, seconds: seconds))
    }

    /// Mutes a member (Sendbird's `muteUser(userId:seconds:)`): it still reads the channel,
    /// and its messages get `userMuted`, for `seconds` or until ``unmuteUser(userId:)``.
    /// Operators cannot be muted. Operators only.
    @discardableResult
    public func muteUser(userId: String, seconds: Int? = nil) async throws -> ChatChannelMember {
        try await client.send(ChatOperation.muteMember, args: MuteArgs(channelId: channelId, userId: userId, seconds: seconds))
    }

    /// Ends a member's mute. Operators only.
    @discardableResult
    public func unmuteUser(userId: String) async throws -> ChatChannelMember {
        try await client.send(ChatOperation.unmuteMember, args: ChannelUserArgs(channelId: channelId, userId: userId))
    }
}
