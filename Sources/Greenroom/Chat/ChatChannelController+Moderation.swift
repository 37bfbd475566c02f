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

extension ChatChannelController {
    // MARK: Bans and the lists of operators' screens

    /// Bans a user from the channel (Sendbird's `banUser(userId:seconds:description:)`):
    /// a member is removed and stops reading the channel, and the user can neither join
    /// nor be invited (`bannedFromChannel`) for `seconds` or until ``unbanUser(userId:)``.
    /// Operators cannot be banned. Operators only.
    @discardableResult
    public func banUser(userId: String, seconds: Int? = nil, description: String? = nil) async throws -> ChannelBan {
        try await client.send(ChatOperation.banMember, args: BanArgs(channelId: channelId, userId: userId, seconds: seconds, reason: description))
    }

    /// Lifts a ban. Operators only.
    public func unbanUser(userId: String) async throws {
        _ = try await client.send(ChatOperation.unbanMember, args: ChannelUserArgs(channelId: channelId, userId: userId))
    }

    /// A page of the bans in force, by user id (Sendbird's banned-user list query).
    /// Operators only.
    public func loadBannedUsers(limit: Int? = nil, cursor: String? = nil) async throws -> Page<ChannelBan> {
        try await client.send(ChatOperation.bannedMembers, args: ChannelPageArgs(channelId: channelId, limit: limit, cursor: cursor))
    }

    /// A page of the members muted now, by user id (Sendbird's muted-user list query).
    /// Operators only.
    public func loadMutedMembers(limit: Int? = nil, cursor: String? = nil) async throws -> Page<ChatChannelMember> {
        try await client.send(ChatOperation.mutedMembers, args: ChannelPageArgs(channelId: channelId, limit: limit, cursor: cursor))
    }
}

extension ChatChannelController {
    // MARK: Reports

    /// Reports another member's message to the app's moderators (Stream's `flag`,
    /// Sendbird's `report(message:)`): it joins the review queue in `/console`, and the
    /// app's backend hears `report.created`. Reporting it again while its report is open
    /// returns that report.
    @discardableResult
    public func reportMessage(messageId: String, reason: String? = nil) async throws -> Report {
        try await client.send(ChatOperation.reportMessage, args: ReportMessageArgs(channelId: channelId, messageId: messageId, reason: reason))
    }
}
