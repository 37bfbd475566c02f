import Foundation

extension ChatChannelController {
    // MARK: Read state

    /// The reader's unread messages in the channel (its messages after the reader's read
    /// position, not deleted), as the server counted them at ``synchronize(messageLimit:)``
    /// or the last ``markRead()``, kept current by the channel's events since.
    public var unreadCount: Int { state.withLock { $0.unreadCount } }

    /// The members' read positions loaded (the first 100 by ``synchronize(messageLimit:)``,
    /// the furthest read first), kept current by `message.read` events. Who has read a
    /// message: the reads whose `lastReadSequence` is at least its `sequence`.
    public var reads: [ChannelRead] {
        state.withLock { $0.reads.values.sorted { ($0.lastReadSequence, $1.userId) > ($1.lastReadSequence, $0.userId) } }
    }

    /// The members who have read `message`, among the reads loaded.
    public func readers(of message: ChatMessage) -> [String] {
        reads.filter { $0.lastReadSequence >= message.sequence && $0.userId != message.senderId }.map(\.userId)
    }

    /// The members `message` reached (read, or delivered to one of their devices), among
    /// the reads loaded: Sendbird's delivery receipt.
    public func receivers(of message: ChatMessage) -> [String] {
        reads.filter { $0.hasReceived(message.sequence) && $0.userId != message.senderId }.map(\.userId)
    }

    /// Marks `messageId` (and every message before it) delivered to the reader; the other
    /// members see `message.delivered`. A message already read changes nothing.
    @discardableResult
    public func markDelivered(messageId: String) async throws -> ChannelRead {
        try await client.send(ChatOperation.markDelivered, args: MarkDeliveredArgs(channelId: channelId, messageId: messageId))
    }

    /// Marks the channel read up to its newest message (members only); the other members
    /// see a `message.read` event, the reader's other devices the new unread count.
    @discardableResult
    public func markRead() async throws -> ChannelRead {
        if client.offline != nil { return try await queueMarkRead(MarkReadArgs(channelId: channelId)) }
        return await took(try await client.send(ChatOperation.markRead, args: MarkReadArgs(channelId: channelId)))
    }

    /// Marks the channel read up to `messageId`; a position already past it stays.
    @discardableResult
    public func markRead(upTo messageId: String) async throws -> ChannelRead {
        if client.offline != nil { return try await queueMarkRead(MarkReadArgs(channelId: channelId, messageId: messageId)) }
        return await took(try await client.send(ChatOperation.markRead, args: MarkReadArgs(channelId: channelId, messageId: messageId)))
    }

    /// The completion-handler form of ``markRead()``, as the chat SDK's controller has it.
    public func markRead(completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { _ = try await self.markRead() }
    }

    /// Makes `messageId` and every message after it unread for the reader.
    @discardableResult
    public func markUnread(from messageId: String) async throws -> ChannelRead {
        await took(try await client.send(ChatOperation.markUnread, args: MarkUnreadArgs(channelId: channelId, messageId: messageId)))
    }

    /// The completion-handler form of ``markUnread(from:)``.
    public func markUnread(from messageId: String, completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { _ = try await self.markUnread(from: messageId) }
    }

    /// Loads a page of the members' read positions (members only) into ``reads``.
    @discardableResult
    public func loadReads(limit: Int? = nil, cursor: String? = nil) async throws -> Page<ChannelRead> {
        let page: Page<ChannelRead> = try await client.send(ChatOperation.reads, args: ChannelReadsArgs(channelId: channelId, limit: limit, cursor: cursor))
        for read in page.items { take(read) }
        return page
    }

    /// Keeps a read position; the reader's own sets ``unreadCount`` when it carries one.
    private func take(_ read: ChannelRead) {
        let me = client.currentUserId
        state.withLock { state in
            if let known = state.reads[read.userId], known.lastReadAt > read.lastReadAt { return }
            state.reads[read.userId] = read
            if read.userId == me, let unread = read.unreadMessages { state.unreadCount = unread }
        }
    }

    /// Keeps the reader's own read from an answer and tells the delegate.
    func took(_ read: ChannelRead) async -> ChannelRead {
        take(read)
        if let delegate = self.delegate, let channel = self.channel {
            await MainActor.run { delegate.channelController(self, didUpdateChannel: channel) }
        }
        return read
    }

    /// The reader's own message, stored: the server read the channel up to it.
    func sentOwn(_ message: ChatMessage) {
        state.withLock { Self.readOwn(message, in: &$0) }
    }

    private static func readOwn(_ message: ChatMessage, in state: inout State) {
        // A reply reads its thread, not the channel.
        guard !message.isThreadReply else { return }
        if let known = state.reads[message.senderId], known.lastReadSequence >= message.sequence { return }
        state.reads[message.senderId] = ChannelRead(channelId: message.channelId, userId: message.senderId, lastReadSequence: message.sequence,
                                                    lastReadMessageId: message.id, lastReadAt: message.createdAt, unreadMessages: 0)
        state.unreadCount = 0
    }

    /// Follows the reader's unread count through the channel's events: another member's
    /// message adds one, a deletion after the read position takes one away, the reader's
    /// own message or a read on another of its devices moves the position (the messages
    /// loaded after it are then the unread ones); reads and deliveries, one or batched,
    /// update ``reads``.
    func countUnread(_ event: ChatEvent, before: ChatMessage?) {
        guard let me = client.currentUserId else { return }
        state.withLock { state in
            let position = state.reads[me]?.lastReadSequence ?? 0
            switch event.type {
            case ChatEventType.messageNew:
                guard let message = event.message, !message.isThreadReply else { return }
                if message.senderId == me {
                    Self.readOwn(message, in: &state)
                } else if before == nil, message.sequence > position {
                    state.unreadCount += 1
                }
            case ChatEventType.messageDeleted:
                guard let message = event.message, !message.isThreadReply, before?.isDeleted != true, message.sequence > position else { return }
                state.unreadCount = max(state.unreadCount - 1, 0)
            case ChatEventType.messageRead:
                for read in Self.positions(event) {
                    if let known = state.reads[read.userId], known.lastReadAt >= read.lastReadAt { continue }
                    var read = read
                    if let known = state.reads[read.userId], (known.lastDeliveredSequence ?? 0) > read.lastReadSequence {
                        read.lastDeliveredSequence = known.lastDeliveredSequence
                        read.lastDeliveredAt = known.lastDeliveredAt
                    }
                    state.reads[read.userId] = read
                    if read.userId == me {
                        state.unreadCount = state.messages.count { $0.sequence > read.lastReadSequence && !$0.isDeleted }
                    }
                }
            case ChatEventType.messageDelivered:
                for delivered in Self.positions(event) {
                    guard let sequence = delivered.lastDeliveredSequence else { continue }
                    var read = state.reads[delivered.userId] ?? delivered
                    if (read.lastDeliveredSequence ?? 0) < sequence {
                        read.lastDeliveredSequence = sequence
                        read.lastDeliveredAt = delivered.lastDeliveredAt
                    }
                    state.reads[delivered.userId] = read
                }
            default:
                return
            }
        }
    }

    /// The positions a receipt event carries: one, or a batch.
    private static func positions(_ event: ChatEvent) -> [ChannelRead] {
        if let reads = event.reads { return reads }
        return event.read.map { [$0] } ?? []
    }
}
