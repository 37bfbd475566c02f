import Foundation

extension ChatOperation {
    /// ``TypingArgs`` → ``EmptyResult``: members only; relays `typing.start` or
    /// `typing.stop` to the channel's subscribers as a signal (``StreamSignal``): never
    /// stored, not counted as activity.
    public static let typing = WireOperation<TypingArgs, EmptyResult>("channel.typing")
}

extension ChatEventType {
    /// A signal on the channel's stream: a member is typing (``TypingIndicator``); it holds
    /// for ``TypingIndicator/expiry`` unless refreshed.
    public static let typingStart = "typing.start"
    /// A signal on the channel's stream: a member stopped typing.
    public static let typingStop = "typing.stop"
}

/// The arguments of `channel.typing`.
public struct TypingArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// `true` to start (or refresh) typing, `false` to stop.
    public var typing: Bool

    /// Makes the arguments.
    public init(channelId: ChannelId, typing: Bool) {
        self.channelId = channelId
        self.typing = typing
    }
}

/// The data of a `typing.start` or `typing.stop` signal.
public struct TypingIndicator: Codable, Sendable, Hashable {
    /// How long a `typing.start` holds without a refresh: a receiver forgets the typist
    /// after it, so a typist whose `typing.stop` was lost (its connection or node gone)
    /// does not stay typing.
    public static let expiry: Duration = .seconds(6)
    /// How often a client that goes on typing refreshes its `typing.start`.
    public static let refresh: Duration = .seconds(3)

    /// The channel.
    public var channelId: ChannelId
    /// The member typing.
    public var userId: String

    /// Makes the indicator.
    public init(channelId: ChannelId, userId: String) {
        self.channelId = channelId
        self.userId = userId
    }
}
