import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    // MARK: Sending into a thread, quoting

    /// The message a reply goes under: in the channel, not deleted, not a reply itself.
    static func threadParent(_ reader: any RecordReading, _ channel: ChannelId, _ parentId: String) async throws -> MessageRecord {
        guard let parent = try await reader.load(MessageRecord.self, scope: channel.rawValue, id: parentId), !parent.message.isDeleted else {
            throw GreenroomError(.messageNotFound, "no message \(parentId) in channel \(channel) to reply to")
        }
        guard !parent.message.isThreadReply else {
            throw GreenroomError(.invalidParameterValue, "message \(parentId) is a reply; reply in its thread, \(parent.message.threadParentId ?? "")")
        }
        return parent
    }

    /// The summary of the message a new message quotes: in the channel, not deleted.
    static func quotable(_ reader: any RecordReading, _ channel: ChannelId, _ messageId: String) async throws -> QuotedMessage {
        guard let quoted = try await reader.load(MessageRecord.self, scope: channel.rawValue, id: messageId)?.message, !quoted.isDeleted else {
            throw GreenroomError(.messageNotFound, "no message \(messageId) in channel \(channel) to quote")
        }
        return QuotedMessage(quoted)
    }

    /// Files `reply` under `parent`: the thread's index of replies, its participants (the
    /// parent's sender, when still a member, with the reply unread; the replier with it
    /// read) and the parent's counts. - Returns: the thread's counts after it.
    static func addReply(_ reply: ChatMessage, to parent: inout MessageRecord, _ transaction: any StorageTransaction) async throws -> ChatThread {
        let channel = reply.channelId
        let parentId = parent.message.id
        if parent.message.replyCount == nil {
            try await transaction.save(ThreadRecord(channelId: channel, parentId: parentId, createdAt: reply.createdAt))
        }
        try await transaction.save(ThreadReplyRecord(reply, parentId: parentId))
        let author = parent.message.senderId
        if author != reply.senderId, try await member(transaction, channel, author)?.state == .joined {
            try await takePart(author, in: channel, parentId, readUpTo: nil, at: reply.createdAt, transaction)
        }
        try await takePart(reply.senderId, in: channel, parentId, readUpTo: reply.sequence, at: reply.createdAt, transaction)
        parent.message.replyCount = (parent.message.replyCount ?? 0) + 1
        parent.message.lastReplyAt = reply.createdAt
        let others = (parent.message.latestReplierIds ?? []).filter { $0 != reply.senderId }
        parent.message.latestReplierIds = Array(([reply.senderId] + others).prefix(Limits.maxLatestRepliers))
        try await transaction.save(parent)
        return try await thread(of: parent.message, transaction)
    }

    /// Makes `userId` take part in a thread if it does not yet (reading up to the parent
    /// when `position` is `nil`), and moves its read position up to `position`.
    private static func takePart(_ userId: String, in channel: ChannelId, _ parentId: String, readUpTo position: Int64?, at now: Date,
                                 _ transaction: any StorageTransaction) async throws {
        let scope = threadScope(channel, parentId)
        if var record = try await transaction.load(ThreadParticipantRecord.self, scope: scope, id: userId) {
            guard let position, position > record.participant.lastReadSequence else { return }
            record.participant.lastReadSequence = position
            record.participant.lastReadAt = now
            try await transaction.save(record)
            return
        }
        let start = position ?? 0
        try await transaction.save(ThreadParticipantRecord(channelId: channel, parentId: parentId, participant: ThreadParticipant(
            userId: userId, joinedAt: now, lastReadSequence: start, lastReadAt: position == nil ? nil : now)))
        try await transaction.save(UserThreadRecord(userId: userId, channelId: channel, parentId: parentId, joinedAt: now))
    }

    /// A thread's counts as its parent holds them, with its participants counted.
    static func thread(of parent: ChatMessage, _ reader: any RecordReading) async throws -> ChatThread {
        let participants = try await reader.countRecords(RecordQuery(kind: ThreadParticipantRecord.recordKind,
                                                                     scope: threadScope(parent.channelId, parent.id)))
        return ChatThread(channelId: parent.channelId, parentMessageId: parent.id, replyCount: parent.replyCount ?? 0,
                          participantCount: participants, lastReplyAt: parent.lastReplyAt, latestReplierIds: parent.latestReplierIds ?? [])
    }

    /// A thread's replies after `position` that are not deleted.
    static func unreadReplies(_ reader: any RecordReading, _ channel: ChannelId, _ parentId: String, after position: Int64) async throws -> Int {
        var query = RecordQuery(kind: ThreadReplyRecord.recordKind, scope: threadScope(channel, parentId))
        query.tags = [MessageRecord.liveTag]
        query.sortAbove = position
        return try await reader.countRecords(query)
    }

    // MARK: After a deletion or an edit

    /// What the deletion of `deleted` (messages of `channel`, emptied and saved) takes with
    /// it: their mentions, pins and quotes of others; the quotes of them in other messages
    /// lose their text; each reply leaves its thread's counts. - Returns: the counts of
    /// the threads that changed, by parent id.
    static func forgetDeleted(_ deleted: [ChatMessage], in channel: ChannelId, _ transaction: any StorageTransaction) async throws -> [String: ChatThread] {
        try await removeMentions(in: channel, sequences: deleted.map(\.sequence), transaction)
        for message in deleted {
            try await transaction.remove(PinRecord.self, scope: channel.rawValue, id: message.id)
            if let quoted = message.parentMessageId {
                try await transaction.remove(QuoteRecord.self, scope: channel.rawValue, id: "\(quoted) \(message.id)")
            }
            try await refreshQuotes(of: message, transaction, forget: true)
        }
        var threads: [String: ChatThread] = [:]
        for (parentId, replies) in Dictionary(grouping: deleted.filter(\.isThreadReply), by: { $0.threadParentId ?? "" }) {
            for reply in replies { try await transaction.save(ThreadReplyRecord(reply, parentId: parentId)) }
            guard var parent = try await transaction.load(MessageRecord.self, scope: channel.rawValue, id: parentId) else { continue }
            threads[parentId] = try await recount(&parent, transaction)
        }
        return threads
    }

    /// Puts `message`'s summary in every message quoting it; with `forget`, the quote
    /// records go too (the message was deleted; it changes no more). Deleted quoting
    /// messages are left as they are.
    static func refreshQuotes(of message: ChatMessage, _ transaction: any StorageTransaction, forget: Bool = false) async throws {
        let scope = message.channelId.rawValue
        var query = RecordQuery(kind: QuoteRecord.recordKind, scope: scope, limit: 1_000)
        query.tags = [message.id]
        while true {
            let page = try await transaction.list(QuoteRecord.self, query)
            for quote in page {
                if forget { try await transaction.remove(QuoteRecord.self, scope: scope, id: quote.recordId) }
                guard var quoting = try await transaction.load(MessageRecord.self, scope: scope, id: quote.quotingId),
                      !quoting.message.isDeleted else { continue }
                quoting.message.quotedMessage = QuotedMessage(message)
                try await transaction.save(quoting)
            }
            guard page.count == query.limit, let last = page.last else { return }
            if !forget { query.after = RecordCursor(sort: last.recordSort, id: last.recordId) }
        }
    }

    /// Counts a thread's replies anew (after deletions): its count, its newest reply and
    /// its latest repliers, saved on the parent. - Returns: the thread's counts.
    private static func recount(_ parent: inout MessageRecord, _ transaction: any StorageTransaction) async throws -> ChatThread {
        var query = RecordQuery(kind: ThreadReplyRecord.recordKind, scope: threadScope(parent.message.channelId, parent.message.id), limit: 100)
        query.tags = [MessageRecord.liveTag]
        let count = try await transaction.countRecords(query)
        query.descending = true
        let recent = try await transaction.list(ThreadReplyRecord.self, query)
        var repliers: [String] = []
        for reply in recent where !repliers.contains(reply.senderId) && repliers.count < Limits.maxLatestRepliers {
            repliers.append(reply.senderId)
        }
        parent.message.replyCount = count
        parent.message.lastReplyAt = recent.first?.createdAt
        parent.message.latestReplierIds = repliers
        try await transaction.save(parent)
        return try await thread(of: parent.message, transaction)
    }

    // MARK: Leaving

    /// Removes a departing member's part in the channel's threads.
    static func leaveThreads(of userId: String, in channel: ChannelId, _ transaction: any StorageTransaction) async throws {
        var query = RecordQuery(kind: UserThreadRecord.recordKind, scope: userId, limit: 1_000)
        query.tags = [channel.rawValue]
        while true {
            let page = try await transaction.list(UserThreadRecord.self, query)
            for thread in page {
                try await transaction.remove(ThreadParticipantRecord.self, scope: thread.recordId, id: userId)
                try await transaction.remove(UserThreadRecord.self, scope: userId, id: thread.recordId)
            }
            guard page.count == query.limit else { return }
        }
    }

    /// Removes every thread of a deleted channel: replies' index, participants (and each
    /// one's record of taking part) and the quotes.
    static func removeThreads(of channel: ChannelId, _ transaction: any StorageTransaction) async throws {
        let threads = try await transaction.list(ThreadRecord.self, RecordQuery(kind: ThreadRecord.recordKind, scope: channel.rawValue, limit: 1_000_000))
        for thread in threads {
            let scope = threadScope(channel, thread.parentId)
            let participants = try await transaction.list(ThreadParticipantRecord.self,
                                                          RecordQuery(kind: ThreadParticipantRecord.recordKind, scope: scope, limit: 1_000_000))
            for participant in participants {
                try await transaction.remove(UserThreadRecord.self, scope: participant.participant.userId, id: scope)
            }
            try await transaction.deleteRecords(kind: ThreadParticipantRecord.recordKind, scope: scope)
            try await transaction.deleteRecords(kind: ThreadReplyRecord.recordKind, scope: scope)
        }
        try await transaction.deleteRecords(kind: ThreadRecord.recordKind, scope: channel.rawValue)
        try await transaction.deleteRecords(kind: QuoteRecord.recordKind, scope: channel.rawValue)
    }

    // MARK: Operations

    /// A page of a thread's replies, oldest first: the newest `limit` before a reply, the
    /// oldest `limit` after one, or the newest `limit`. Members only.
    package func replies(_ args: MessageRepliesArgs, by reader: String) async throws -> Page<ChatMessage> {
        let id = args.channelId
        let limit = try await checkHistoryPage(id, before: args.before, after: args.after, limit: args.limit, reader: reader)
        let scope = threadScope(id, args.parentMessageId)
        guard try await storage.load(MessageRecord.self, scope: id.rawValue, id: args.parentMessageId) != nil else {
            throw GreenroomError(.messageNotFound, "no message \(args.parentMessageId) in channel \(id)")
        }
        var query = RecordQuery(kind: ThreadReplyRecord.recordKind, scope: scope, limit: limit + 1)
        if let anchor = args.before ?? args.after {
            guard let reply = try await storage.load(ThreadReplyRecord.self, scope: scope, id: anchor) else {
                throw GreenroomError(.messageNotFound, "no reply \(anchor) in the thread of \(args.parentMessageId)")
            }
            if args.before != nil { query.sortBelow = reply.sequence } else { query.sortAbove = reply.sequence }
        }
        query.descending = args.after == nil
        let found = try await storage.list(ThreadReplyRecord.self, query)
        var ids = found.prefix(limit).map(\.messageId)
        if query.descending { ids.reverse() }
        var messages = RecordQuery(kind: MessageRecord.recordKind, scope: id.rawValue, limit: ids.count)
        messages.ids = ids
        let byId = Dictionary(uniqueKeysWithValues: try await storage.list(MessageRecord.self, messages).map { ($0.message.id, $0.message) })
        let page = ids.compactMap { byId[$0] }
        let next = found.count > limit ? (args.after == nil ? page.first?.id : page.last?.id) : nil
        return Page(items: try await hidingBlocked(page, from: reader), next: next)
    }

    /// A page of a thread's participants, the first to take part first. Members only.
    package func threadParticipants(_ args: ThreadPageArgs, by reader: String) async throws -> Page<ThreadParticipant> {
        let limit = try Paging.limit(args.limit)
        _ = try await Self.channel(storage, args.channelId)
        try await Self.requireJoined(storage, args.channelId, reader)
        var query = RecordQuery(kind: ThreadParticipantRecord.recordKind, scope: threadScope(args.channelId, args.parentMessageId))
        query.after = try args.cursor.map(RecordCursor.decode)
        let (items, next) = try await storage.page(ThreadParticipantRecord.self, query, limit: limit)
        return Page(items: items.map(\.participant), next: next)
    }

    /// Moves a participant's read position in a thread to its newest reply and tells the
    /// reader's own stream (`notification.threadReadChanged`). A member who does not take
    /// part stores nothing and gets the thread's counts alone. Members only.
    package func markThreadRead(_ ref: ThreadRef, by userId: String) async throws -> ChatThread {
        let id = ref.channelId
        return try await events.transact { transaction in
            _ = try await Self.channel(transaction, id)
            try await Self.requireJoined(transaction, id, userId)
            guard let parent = try await transaction.load(MessageRecord.self, scope: id.rawValue, id: ref.parentMessageId)?.message else {
                throw GreenroomError(.messageNotFound, "no message \(ref.parentMessageId) in channel \(id)")
            }
            var thread = try await Self.thread(of: parent, transaction)
            let scope = threadScope(id, parent.id)
            guard var record = try await transaction.load(ThreadParticipantRecord.self, scope: scope, id: userId) else { return thread }
            var newest = RecordQuery(kind: ThreadReplyRecord.recordKind, scope: scope, limit: 1)
            newest.descending = true
            let position = try await transaction.list(ThreadReplyRecord.self, newest).first?.sequence ?? parent.sequence
            thread.unreadReplies = 0
            thread.lastReadSequence = max(position, record.participant.lastReadSequence)
            guard position > record.participant.lastReadSequence else { return thread }
            record.participant.lastReadSequence = position
            record.participant.lastReadAt = Date.wireNow
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(ChatEventType.threadReadChanged, on: StreamName.user(userId),
                                                             ChatEvent(type: "", channelId: id, actorId: userId, thread: thread))])
            return thread
        }
    }

    /// A page of the threads the caller takes part in, the latest joined first, each with
    /// its parent message and the caller's unread replies.
    package func threads(_ args: UserThreadsArgs, of userId: String) async throws -> Page<ChatThread> {
        let limit = try Paging.limit(args.limit)
        var query = RecordQuery(kind: UserThreadRecord.recordKind, scope: userId)
        query.descending = true
        query.after = try args.cursor.map(RecordCursor.decode)
        let (items, next) = try await storage.page(UserThreadRecord.self, query, limit: limit)
        var threads: [ChatThread] = []
        for item in items {
            guard let parent = try await storage.load(MessageRecord.self, scope: item.channelId.rawValue, id: item.parentId)?.message,
                  let mine = try await storage.load(ThreadParticipantRecord.self, scope: item.recordId, id: userId)?.participant else { continue }
            var thread = try await Self.thread(of: parent, storage)
            thread.parentMessage = parent
            thread.lastReadSequence = mine.lastReadSequence
            thread.unreadReplies = try await Self.unreadReplies(storage, item.channelId, item.parentId, after: mine.lastReadSequence)
            threads.append(thread)
        }
        return Page(items: threads, next: next)
    }
}
