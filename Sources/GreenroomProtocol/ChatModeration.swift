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
}

extension Limits {
    /// The longest slow mode, in seconds.
    public static let maxSlowModeSeconds = 3_600
    /// The longest timed mute, in seconds (a mute without a duration lasts until unmuted).
    public static let maxMuteSeconds = 365 * 24 * 3_600
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
