import Foundation

extension ChatOperation {
    /// ``MarkReadArgs`` → ``ChannelRead``: members only; moves the caller's read position
    /// forward to a message (the newest when none is named), never back.
    public static let markRead = WireOperation<MarkReadArgs, ChannelRead>("channel.markRead")
    /// ``MarkUnreadArgs`` → ``ChannelRead``: members only; makes a message and every one
    /// after it unread for the caller.
    public static let markUnread = WireOperation<MarkUnreadArgs, ChannelRead>("channel.markUnread")
    /// ``ChannelReadsArgs`` → ``Page`` of ``ChannelRead``: members only; each member's read
    /// position, the furthest read first.
    public static let reads = WireOperation<ChannelReadsArgs, Page<ChannelRead>>("channel.reads")
    /// ``MarkDeliveredArgs`` → ``ChannelRead``: members only; moves the caller's delivery
    /// position forward to a message (it reached one of the caller's devices), never back.
    /// Also `POST /v1/channels/{id}/delivered` with the client token, for a notification
    /// extension that opens no WebSocket.
    public static let markDelivered = WireOperation<MarkDeliveredArgs, ChannelRead>("channel.markDelivered")
    /// No arguments → ``UnreadCounts``: the caller's unread messages in each of its channels.
    public static let unreadCounts = WireOperation<EmptyResult, UnreadCounts>("user.unreadCounts")
}

extension ChatEventType {
    /// A member read up to a message (``ChatEvent/read``), or, in a channel of more than
    /// the server's receipt batch size, members read (``ChatEvent/reads``, at most one event
    /// a second per channel on each node); on the channel's stream.
    public static let messageRead = "message.read"
    /// A message reached a member's device (``ChatEvent/read`` with its delivery position),
    /// batched like ``messageRead`` in big channels (``ChatEvent/reads``).
    public static let messageDelivered = "message.delivered"
    /// On a user's stream: the user's read position in a channel changed, by
    /// `channel.markRead` or `channel.markUnread` on any of its connections, or by its own
    /// message (``ChatEvent/read`` carries the channel's unread count).
    public static let readChanged = "notification.readChanged"
}

/// The arguments of `channel.markRead`.
public struct MarkReadArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The last message read; the channel's newest when `nil`.
    public var messageId: String?

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String? = nil) {
        self.channelId = channelId
        self.messageId = messageId
    }
}

/// The arguments of `channel.markDelivered`.
public struct MarkDeliveredArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The message delivered (and every one before it).
    public var messageId: String

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String) {
        self.channelId = channelId
        self.messageId = messageId
    }
}

/// The arguments of `channel.markUnread`.
public struct MarkUnreadArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The first message to count unread.
    public var messageId: String

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String) {
        self.channelId = channelId
        self.messageId = messageId
    }
}

/// The arguments of `channel.reads`.
public struct ChannelReadsArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// Page size, 1–100; 100 by default.
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

/// A member's read position in a channel: every message up to ``lastReadSequence`` is read.
///
/// Who has read a message: the members whose ``lastReadSequence`` is at least the message's
/// ``ChatMessage/sequence``; who has received it: ``hasReceived(_:)``.
public struct ChannelRead: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The member.
    public var userId: String
    /// The sequence number of the last message read (0: none).
    public var lastReadSequence: Int64
    /// The last message read, when there is one.
    public var lastReadMessageId: String?
    /// When the position last moved.
    public var lastReadAt: Date
    /// The messages after the position, not deleted: in the answers and events the member
    /// itself gets; `nil` in other members' reads.
    public var unreadMessages: Int?
    /// Of those, the ones that mention the member; set with ``unreadMessages``.
    public var unreadMentions: Int?
    /// The sequence number of the last message delivered to one of the member's devices
    /// (`channel.markDelivered`), when it is past the read position; a read message counts
    /// as delivered.
    public var lastDeliveredSequence: Int64?
    /// When the delivery position last moved.
    public var lastDeliveredAt: Date?

    /// Whether the message with sequence number `sequence` reached the member: read, or
    /// delivered to one of its devices.
    public func hasReceived(_ sequence: Int64) -> Bool {
        max(lastReadSequence, lastDeliveredSequence ?? 0) >= sequence
    }

    /// Makes a read position.
    public init(channelId: ChannelId, userId: String, lastReadSequence: Int64, lastReadMessageId: String? = nil,
                lastReadAt: Date, unreadMessages: Int? = nil, unreadMentions: Int? = nil) {
        self.channelId = channelId
        self.userId = userId
        self.lastReadSequence = lastReadSequence
        self.lastReadMessageId = lastReadMessageId
        self.lastReadAt = lastReadAt
        self.unreadMessages = unreadMessages
        self.unreadMentions = unreadMentions
    }
}

/// A user's unread messages: `user.unreadCounts`.
public struct UnreadCounts: Codable, Sendable, Hashable {
    /// Unread messages in all the user's channels.
    public var totalUnreadMessages: Int
    /// How many of its channels have unread messages.
    public var unreadChannels: Int
    /// Unread messages that mention the user, in all its channels.
    public var totalUnreadMentions: Int
    /// Each joined channel's unread messages (channels with none included, with 0).
    public var channels: [ChannelUnread]

    /// Makes the counts.
    public init(totalUnreadMessages: Int, unreadChannels: Int, totalUnreadMentions: Int = 0, channels: [ChannelUnread]) {
        self.totalUnreadMessages = totalUnreadMessages
        self.unreadChannels = unreadChannels
        self.totalUnreadMentions = totalUnreadMentions
        self.channels = channels
    }
}

/// One channel's unread messages for the caller.
public struct ChannelUnread: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// Its messages after the caller's read position, not deleted.
    public var unreadMessages: Int
    /// The caller's read position.
    public var lastReadSequence: Int64
    /// Of the unread messages, those that mention the caller.
    public var unreadMentions: Int

    /// Makes the count.
    public init(channelId: ChannelId, unreadMessages: Int, lastReadSequence: Int64, unreadMentions: Int = 0) {
        self.channelId = channelId
        self.unreadMessages = unreadMessages
        self.lastReadSequence = lastReadSequence
        self.unreadMentions = unreadMentions
    }
}
