import Foundation

extension ChatChannelController {
    // MARK: Threads

    /// A thread's loaded replies, oldest first, kept current by the channel's events (the
    /// thread's parent, in ``messages``, carries its `replyCount` and latest repliers).
    public func replies(of parentMessageId: String) -> [ChatMessage] {
        state.withLock { $0.threads[parentMessageId] ?? [] }
    }

    /// Sends a reply in the thread of `parentMessageId` (a message of the channel that is
    /// not a reply itself); retried with its idempotency key like
    /// ``sendMessage(text:extraData:mentionedUserIds:quotedMessageId:idempotencyKey:)``.
    /// A reply does not count in the channel's unread messages but in the thread's.
    @discardableResult
    public func sendReply(to parentMessageId: String, text: String, extraData: [String: RawJSON] = [:], mentionedUserIds: [String] = [],
                          quotedMessageId: String? = nil, idempotencyKey: String = UUID().uuidString) async throws -> ChatMessage {
        try await send(sendArgs(text: text, extraData: extraData, mentionedUserIds: mentionedUserIds, quotedMessageId: quotedMessageId,
                                threadParentId: parentMessageId, idempotencyKey: idempotencyKey))
    }

    /// Sends a reply, as the chat SDK's message controller does (`createNewReply`):
    /// `completion` (optional) runs on the main actor. Replies and messages sent this way
    /// go out one at a time, in the order of the calls.
    public func createNewReply(to parentMessageId: String, text: String, extraData: [String: RawJSON] = [:], quotedMessageId: String? = nil,
                               completion: ChatCompletion<ChatMessage>? = nil) {
        enqueue(sendArgs(text: text, extraData: extraData, quotedMessageId: quotedMessageId, threadParentId: parentMessageId,
                         idempotencyKey: UUID().uuidString), completion: completion)
    }

    /// Loads up to `limit` replies of a thread sent before `replyId` (the oldest loaded one
    /// when `nil`; the newest replies when none is loaded) into ``replies(of:)``.
    /// - Returns: the page, oldest first.
    @discardableResult
    public func loadPreviousReplies(of parentMessageId: String, before replyId: String? = nil, limit: Int = 25) async throws -> Page<ChatMessage> {
        let anchor = replyId ?? replies(of: parentMessageId).first?.id
        let page: Page<ChatMessage> = try await client.send(ChatOperation.replies, args: MessageRepliesArgs(
            channelId: channelId, parentMessageId: parentMessageId, before: anchor, limit: limit))
        merge(page.items)
        return page
    }

    /// Loads up to `limit` replies of a thread sent after `replyId` into ``replies(of:)``.
    @discardableResult
    public func loadNextReplies(of parentMessageId: String, after replyId: String, limit: Int = 25) async throws -> Page<ChatMessage> {
        let page: Page<ChatMessage> = try await client.send(ChatOperation.replies, args: MessageRepliesArgs(
            channelId: channelId, parentMessageId: parentMessageId, after: replyId, limit: limit))
        merge(page.items)
        return page
    }

    /// A page of a thread's participants: its parent's sender and the members who replied.
    public func loadThreadParticipants(of parentMessageId: String, limit: Int? = nil, cursor: String? = nil) async throws -> Page<ThreadParticipant> {
        try await client.send(ChatOperation.threadParticipants, args: ThreadPageArgs(
            channelId: channelId, parentMessageId: parentMessageId, limit: limit, cursor: cursor))
    }

    /// Marks a thread read up to its newest reply, for a member taking part in it; its
    /// other devices hear `notification.threadReadChanged`. - Returns: the thread.
    @discardableResult
    public func markThreadRead(parentMessageId: String) async throws -> ChatThread {
        try await client.send(ChatOperation.markThreadRead, args: ThreadRef(channelId: channelId, parentMessageId: parentMessageId))
    }

    /// The completion-handler form of ``markThreadRead(parentMessageId:)``.
    public func markThreadRead(parentMessageId: String, completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { _ = try await self.markThreadRead(parentMessageId: parentMessageId) }
    }

    /// Takes a thread's counts from an event into its loaded parent. - Returns: whether
    /// the parent is loaded.
    static func takeThread(_ thread: ChatThread, in state: inout State) -> Bool {
        guard let index = state.messages.firstIndex(where: { $0.id == thread.parentMessageId }) else { return false }
        state.messages[index].replyCount = thread.replyCount
        state.messages[index].lastReplyAt = thread.lastReplyAt
        state.messages[index].latestReplierIds = thread.latestReplierIds
        return true
    }

    /// Puts a changed message's summary in the loaded messages quoting it.
    static func requote(_ message: ChatMessage, in state: inout State) {
        let quote = QuotedMessage(message)
        for index in state.messages.indices where state.messages[index].quotedMessage?.id == message.id {
            state.messages[index].quotedMessage = quote
        }
        for parent in state.threads.keys {
            for index in state.threads[parent, default: []].indices where state.threads[parent]?[index].quotedMessage?.id == message.id {
                state.threads[parent]?[index].quotedMessage = quote
            }
        }
    }
}
