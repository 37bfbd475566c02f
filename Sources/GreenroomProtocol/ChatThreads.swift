import Foundation

extension ChatOperation {
    /// ``MessageRepliesArgs`` → ``Page`` of ``ChatMessage``: members only; a thread's
    /// replies, oldest first, paged like `message.list`.
    public static let replies = WireOperation<MessageRepliesArgs, Page<ChatMessage>>("message.replies")
    /// ``ThreadPageArgs`` → ``Page`` of ``ThreadParticipant``: members only; the thread's
    /// participants (its parent's sender and every member who replied), the first to join
    /// first.
    public static let threadParticipants = WireOperation<ThreadPageArgs, Page<ThreadParticipant>>("thread.participants")
    /// ``ThreadRef`` → ``ChatThread``: members only; moves a participant's read position
    /// in a thread to its newest reply. A member who does not take part stores nothing.
    public static let markThreadRead = WireOperation<ThreadRef, ChatThread>("thread.markRead")
    /// ``UserThreadsArgs`` → ``Page`` of ``ChatThread``: the threads the caller takes part
    /// in, the latest joined first, each with its parent message and unread replies.
    public static let threads = WireOperation<UserThreadsArgs, Page<ChatThread>>("user.threads")
}

extension ChatEventType {
    /// On a user's stream: the user read a thread, on any of its connections
    /// (``ChatEvent/thread`` carries its unread replies).
    public static let threadReadChanged = "notification.threadReadChanged"
}

extension Limits {
    /// The most characters of a quoted message's text a quote carries.
    public static let maxQuotedTextLength = 300
    /// The most repliers a thread's parent names (``ChatMessage/latestReplierIds``).
    public static let maxLatestRepliers = 5
}

/// What a quote shows of the quoted message (Stream's `quotedMessage`): a summary taken
/// when the quote was sent and kept current when the quoted message is edited; once it is
/// deleted, its text is gone here too.
public struct QuotedMessage: Codable, Sendable, Hashable {
    /// The quoted message's id.
    public var id: String
    /// Who sent it.
    public var senderId: String
    /// Its text, at most ``Limits/maxQuotedTextLength`` characters; empty once deleted.
    public var text: String
    /// When it was sent.
    public var createdAt: Date
    /// When it was deleted, if it was.
    public var deletedAt: Date?

    /// Makes a summary.
    public init(id: String, senderId: String, text: String, createdAt: Date, deletedAt: Date? = nil) {
        self.id = id
        self.senderId = senderId
        self.text = text
        self.createdAt = createdAt
        self.deletedAt = deletedAt
    }

    /// The summary of `message`.
    public init(_ message: ChatMessage) {
        self.init(id: message.id, senderId: message.senderId, text: String(message.text.prefix(Limits.maxQuotedTextLength)),
                  createdAt: message.createdAt, deletedAt: message.deletedAt)
    }
}

/// A thread: a message (its parent) and the replies in it. Events about a reply
/// (``ChatEvent/thread``) carry the thread's counts; `user.threads` and
/// `thread.markRead` add the reader's part.
public struct ChatThread: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The thread's parent message.
    public var parentMessageId: String
    /// Its replies that are not deleted.
    public var replyCount: Int
    /// How many members take part.
    public var participantCount: Int
    /// When the newest reply that is not deleted was sent.
    public var lastReplyAt: Date?
    /// The latest repliers, the latest first (at most ``Limits/maxLatestRepliers``).
    public var latestReplierIds: [String]
    /// The parent message, in `user.threads`.
    public var parentMessage: ChatMessage?
    /// The reader's replies not read yet, when the reader takes part.
    public var unreadReplies: Int?
    /// The sequence number of the last reply the reader read, when it takes part.
    public var lastReadSequence: Int64?

    /// Makes a thread.
    public init(channelId: ChannelId, parentMessageId: String, replyCount: Int, participantCount: Int, lastReplyAt: Date? = nil,
                latestReplierIds: [String] = [], parentMessage: ChatMessage? = nil, unreadReplies: Int? = nil, lastReadSequence: Int64? = nil) {
        self.channelId = channelId
        self.parentMessageId = parentMessageId
        self.replyCount = replyCount
        self.participantCount = participantCount
        self.lastReplyAt = lastReplyAt
        self.latestReplierIds = latestReplierIds
        self.parentMessage = parentMessage
        self.unreadReplies = unreadReplies
        self.lastReadSequence = lastReadSequence
    }
}

/// A member taking part in a thread.
public struct ThreadParticipant: Codable, Sendable, Hashable, Identifiable {
    /// The member.
    public var userId: String
    /// When it began to take part (its first reply, or the first reply to its message).
    public var joinedAt: Date
    /// The sequence number of the last reply it read.
    public var lastReadSequence: Int64
    /// When it last read the thread.
    public var lastReadAt: Date?

    /// The member's id.
    public var id: String { userId }

    /// Makes a participant.
    public init(userId: String, joinedAt: Date, lastReadSequence: Int64, lastReadAt: Date? = nil) {
        self.userId = userId
        self.joinedAt = joinedAt
        self.lastReadSequence = lastReadSequence
        self.lastReadAt = lastReadAt
    }
}

/// Names a thread by its parent message.
public struct ThreadRef: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The thread's parent message.
    public var parentMessageId: String

    /// Makes the reference.
    public init(channelId: ChannelId, parentMessageId: String) {
        self.channelId = channelId
        self.parentMessageId = parentMessageId
    }
}

/// The arguments of `message.replies`: a page before or after a reply, or the newest.
public struct MessageRepliesArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The thread's parent message.
    public var parentMessageId: String
    /// Replies sent before this reply.
    public var before: String?
    /// Replies sent after this reply.
    public var after: String?
    /// Page size, 1–100; 20 by default.
    public var limit: Int?

    /// Makes the arguments.
    public init(channelId: ChannelId, parentMessageId: String, before: String? = nil, after: String? = nil, limit: Int? = nil) {
        self.channelId = channelId
        self.parentMessageId = parentMessageId
        self.before = before
        self.after = after
        self.limit = limit
    }
}

/// The arguments of `thread.participants`.
public struct ThreadPageArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The thread's parent message.
    public var parentMessageId: String
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(channelId: ChannelId, parentMessageId: String, limit: Int? = nil, cursor: String? = nil) {
        self.channelId = channelId
        self.parentMessageId = parentMessageId
        self.limit = limit
        self.cursor = cursor
    }
}

/// The arguments of `user.threads`.
public struct UserThreadsArgs: Codable, Sendable, Hashable {
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(limit: Int? = nil, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }
}
