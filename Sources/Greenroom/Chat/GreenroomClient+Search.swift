import Foundation

extension GreenroomClient {
    /// Searches the messages of the channels this user has joined (Sendbird's
    /// `MessageSearchQuery`): every word of `query.keyword`, whole, whatever its case and
    /// accents; newest first or by relevance. Pass a page's `next` as `query.cursor` for
    /// the next page.
    ///
    /// ```swift
    /// var query = MessageSearchQuery(keyword: "launch date", channelId: "team", order: .relevance)
    /// let first = try await client.searchMessages(query)
    /// query.cursor = first.next
    /// ```
    public func searchMessages(_ query: MessageSearchQuery) async throws -> Page<ChatMessage> {
        try await send(ChatOperation.searchMessages, args: query)
    }
}
