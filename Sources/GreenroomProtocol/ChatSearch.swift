import Foundation

extension ChatOperation {
    /// ``MessageSearchQuery`` → ``Page`` of ``ChatMessage``: the messages (thread replies
    /// included) of the caller's joined channels whose text holds every word of the
    /// keyword, as they are now: an edited message is found by its new text only, a
    /// deleted one never; messages of users the caller blocked are left out.
    public static let searchMessages = WireOperation<MessageSearchQuery, Page<ChatMessage>>("message.search")
}

extension Limits {
    /// The longest search keyword, in characters.
    public static let maxSearchKeywordLength = 256
    /// The most words a search keyword may hold.
    public static let maxSearchTerms = 10
    /// How far a search by relevance pages: results past this many are not reached.
    public static let maxSearchOffset = 1_000
}

/// The order of search results.
public enum MessageSearchOrder: String, Codable, Sendable, Hashable, CaseIterable {
    /// The latest message first.
    case newest
    /// The best match first (then the latest).
    case relevance
}

/// A message search (Sendbird's `MessageSearchQuery`): whole words, whatever their case and
/// accents; every word must be in the text.
public struct MessageSearchQuery: Codable, Sendable, Hashable {
    /// The words to find (1–``Limits/maxSearchTerms`` words, at most
    /// ``Limits/maxSearchKeywordLength`` characters).
    public var keyword: String
    /// Only this channel (the caller must have joined it); every joined channel when `nil`.
    public var channelId: ChannelId?
    /// Only messages of this sender.
    public var senderId: String?
    /// Only messages sent at or after this.
    public var from: Date?
    /// Only messages sent before this.
    public var to: Date?
    /// The order; ``MessageSearchOrder/newest`` when `nil`.
    public var order: MessageSearchOrder?
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes a search.
    public init(keyword: String, channelId: ChannelId? = nil, senderId: String? = nil, from: Date? = nil, to: Date? = nil,
                order: MessageSearchOrder? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.keyword = keyword
        self.channelId = channelId
        self.senderId = senderId
        self.from = from
        self.to = to
        self.order = order
        self.limit = limit
        self.cursor = cursor
    }
}
