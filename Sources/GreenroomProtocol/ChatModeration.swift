import Foundation

extension ChatOperation {
    /// ``FreezeArgs`` → ``ChatChannel``: operators only; freezes the channel (only
    /// operators send) or unfreezes it; the channel hears `channel.updated`.
    public static let freeze = WireOperation<FreezeArgs, ChatChannel>("channel.freeze")
    /// ``SlowModeArgs`` → ``ChatChannel``: operators only; sets the seconds a member waits
    /// between its messages (0: off); the channel hears `channel.updated`.
    public static let setSlowMode = WireOperation<SlowModeArgs, ChatChannel>("channel.setSlowMode")
    /// ``MuteArgs`` → ``ChatChannelMember``: operators only; mutes a member (not an
    /// operator) for `seconds`, or until unmuted; the channel hears `member.muted`.
    public static let muteMember = WireOperation<MuteArgs, ChatChannelMember>("channel.muteMember")
    /// ``ChannelUserArgs`` → ``ChatChannelMember``: operators only; ends a member's mute;
    /// the channel hears `member.unmuted`.
    public static let unmuteMember = WireOperation<ChannelUserArgs, ChatChannelMember>("channel.unmuteMember")
    /// ``ChannelPageArgs`` → ``Page`` of ``ChatChannelMember``: operators only; the members
    /// muted now, by user id.
    public static let mutedMembers = WireOperation<ChannelPageArgs, Page<ChatChannelMember>>("channel.mutedMembers")
    /// ``BanArgs`` → ``ChannelBan``: operators only; bans a user who is not an operator
    /// (member, invitee or neither) for `seconds` or until unbanned, with a reason: a member
    /// is removed and stops reading the channel, and the user can neither join nor be
    /// invited (`bannedFromChannel`); the channel hears `member.banned`.
    public static let banMember = WireOperation<BanArgs, ChannelBan>("channel.banMember")
    /// ``ChannelUserArgs`` → ``EmptyResult``: operators only; lifts a ban (the user may
    /// join again); the channel hears `member.unbanned`.
    public static let unbanMember = WireOperation<ChannelUserArgs, EmptyResult>("channel.unbanMember")
    /// ``ChannelPageArgs`` → ``Page`` of ``ChannelBan``: operators only; the bans in force,
    /// by user id.
    public static let bannedMembers = WireOperation<ChannelPageArgs, Page<ChannelBan>>("channel.bannedMembers")
}

extension Limits {
    /// The longest slow mode, in seconds.
    public static let maxSlowModeSeconds = 3_600
    /// The longest timed mute or ban, in seconds (one without a duration lasts until lifted).
    public static let maxMuteSeconds = 365 * 24 * 3_600
    /// The longest reason of a ban or a report, in characters.
    public static let maxReasonLength = 500
}

/// The arguments of `channel.freeze`.
public struct FreezeArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// `true` to freeze, `false` to unfreeze.
    public var frozen: Bool

    /// Makes the arguments.
    public init(channelId: ChannelId, frozen: Bool) {
        self.channelId = channelId
        self.frozen = frozen
    }
}

/// The arguments of `channel.setSlowMode`.
public struct SlowModeArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// Seconds between a member's messages, 1–``Limits/maxSlowModeSeconds``; 0 turns slow
    /// mode off.
    public var seconds: Int

    /// Makes the arguments.
    public init(channelId: ChannelId, seconds: Int) {
        self.channelId = channelId
        self.seconds = seconds
    }
}

/// The arguments of `channel.muteMember`.
public struct MuteArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The member to mute.
    public var userId: String
    /// How long, 1–``Limits/maxMuteSeconds``; until unmuted when `nil`.
    public var seconds: Int?

    /// Makes the arguments.
    public init(channelId: ChannelId, userId: String, seconds: Int? = nil) {
        self.channelId = channelId
        self.userId = userId
        self.seconds = seconds
    }
}

/// Names a member of a channel.
public struct ChannelUserArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The member.
    public var userId: String

    /// Makes the arguments.
    public init(channelId: ChannelId, userId: String) {
        self.channelId = channelId
        self.userId = userId
    }
}

/// The arguments of `channel.banMember`.
public struct BanArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The user to ban.
    public var userId: String
    /// How long, 1–``Limits/maxMuteSeconds``; until unbanned when `nil`.
    public var seconds: Int?
    /// Why, for the operators (at most ``Limits/maxReasonLength`` characters).
    public var reason: String?

    /// Makes the arguments.
    public init(channelId: ChannelId, userId: String, seconds: Int? = nil, reason: String? = nil) {
        self.channelId = channelId
        self.userId = userId
        self.seconds = seconds
        self.reason = reason
    }
}

/// A user banned from a channel.
public struct ChannelBan: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The user banned.
    public var userId: String
    /// Why, as the operator said.
    public var reason: String?
    /// The operator who banned it; `nil` for the app's backend.
    public var bannedBy: String?
    /// When.
    public var createdAt: Date
    /// When the ban ends; `nil` until it is lifted.
    public var expiresAt: Date?

    /// Makes a ban.
    public init(channelId: ChannelId, userId: String, reason: String? = nil, bannedBy: String? = nil,
                createdAt: Date, expiresAt: Date? = nil) {
        self.channelId = channelId
        self.userId = userId
        self.reason = reason
        self.bannedBy = bannedBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Whether the ban holds at `date`.
    public func isActive(at date: Date = Date()) -> Bool { expiresAt.map { $0 > date } ?? true }
}

/// A page of something of one channel: the arguments of `channel.mutedMembers`,
/// `channel.bannedMembers` and `channel.pinnedMessages`.
public struct ChannelPageArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(channelId: ChannelId, limit: Int? = nil, cursor: String? = nil) {
        self.channelId = channelId
        self.limit = limit
        self.cursor = cursor
    }
}
