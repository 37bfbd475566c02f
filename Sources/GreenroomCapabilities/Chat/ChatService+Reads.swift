import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// The most channels `user.unreadCounts` counts in one answer.
    package static let unreadChannelsLimit = 1_000

    /// A member's messages after `position` in a channel that are not deleted: a count over
    /// the channel's index of messages, so that no message writes a row per member.
    package static func unreadCount(_ reader: any RecordReading, _ channel: ChannelId, after position: Int64) async throws -> Int {
        var query = RecordQuery(kind: MessageRecord.recordKind, scope: channel.rawValue)
        query.tags = [MessageRecord.liveTag]
        query.sortAbove = position
        return try await reader.countRecords(query)
    }

    /// A member's unread messages that mention it: its mentions after `position` (a
    /// deleted message's are removed with it).
    package static func unreadMentions(_ reader: any RecordReading, _ channel: ChannelId, _ userId: String, after position: Int64) async throws -> Int {
        var query = RecordQuery(kind: MentionRecord.recordKind, scope: channel.rawValue)
        query.tags = [userId]
        query.sortAbove = position
        return try await reader.countRecords(query)
    }

    /// Sets a read's own counts: its unread messages and mentions.
    private static func counted(_ read: ChannelRead, _ reader: any RecordReading) async throws -> ChannelRead {
        var read = read
        read.unreadMessages = try await unreadCount(reader, read.channelId, after: read.lastReadSequence)
        read.unreadMentions = try await unreadMentions(reader, read.channelId, read.userId, after: read.lastReadSequence)
        return read
    }

    /// Removes the mention records of the messages of `channel` with sequence numbers
    /// `sequences` (deleted messages).
    package static func removeMentions(in channel: ChannelId, sequences: [Int64], _ transaction: any StorageTransaction) async throws {
        for sequence in sequences {
            var query = RecordQuery(kind: MentionRecord.recordKind, scope: channel.rawValue, limit: Limits.maxMentions + 1)
            query.sortAbove = sequence - 1
            query.sortBelow = sequence + 1
            for record in try await transaction.records(query) {
                _ = try await transaction.deleteRecord(kind: MentionRecord.recordKind, scope: channel.rawValue, id: record.id)
            }
        }
    }

    /// Removes a departing member's mention records in a channel.
    package static func removeMentions(of userId: String, in channel: ChannelId, _ transaction: any StorageTransaction) async throws {
        var query = RecordQuery(kind: MentionRecord.recordKind, scope: channel.rawValue, limit: 1_000)
        query.tags = [userId]
        while true {
            let page = try await transaction.records(query)
            for record in page {
                _ = try await transaction.deleteRecord(kind: MentionRecord.recordKind, scope: channel.rawValue, id: record.id)
            }
            guard page.count == query.limit else { return }
        }
    }

    /// A member's read position; none stored (a membership older than read positions)
    /// reads as nothing read.
    package static func readPosition(_ reader: any RecordReading, _ channel: ChannelId, _ userId: String) async throws -> ChannelRead {
        try await reader.load(ReadRecord.self, scope: channel.rawValue, id: userId)?.read
            ?? ChannelRead(channelId: channel, userId: userId, lastReadSequence: 0, lastReadAt: Date(timeIntervalSince1970: 0))
    }

    /// The message of a channel with the highest sequence number below `sequence` that is
    /// not deleted, if any.
    private static func lastMessage(_ reader: any RecordReading, _ channel: ChannelId, below sequence: Int64) async throws -> ChatMessage? {
        var query = RecordQuery(kind: MessageRecord.recordKind, scope: channel.rawValue, limit: 1)
        query.tags = [MessageRecord.liveTag]
        query.sortBelow = sequence
        query.descending = true
        return try await reader.list(MessageRecord.self, query).first?.message
    }

    /// A message of the channel's own list, not deleted. - Throws: `messageNotFound`, or
    /// `invalidParameterValue` for a thread reply.
    static func message(_ reader: any RecordReading, _ channel: ChannelId, _ messageId: String) async throws -> ChatMessage {
        guard let message = try await reader.load(MessageRecord.self, scope: channel.rawValue, id: messageId)?.message,
              !message.isDeleted else {
            throw GreenroomError(.messageNotFound, "no message \(messageId) in channel \(channel)")
        }
        guard !message.isThreadReply else {
            throw GreenroomError(.invalidParameterValue, "message \(messageId) is a thread reply; thread.markRead reads its thread")
        }
        return message
    }

    /// Moves the caller's read position forward to a message (the channel's newest when
    /// none is named) and tells the channel (`message.read`, for receipts; batched in a big
    /// channel) and the caller's own stream (`notification.readChanged`, with the unread
    /// count, for its other devices), in one transaction. A position already there or
    /// further stays, and nothing is written. Members only.
    package func markRead(_ args: MarkReadArgs, by userId: String) async throws -> ChannelRead {
        let id = args.channelId
        let (read, batched) = try await events.transact(streams: [id.stream]) { transaction -> (ChannelRead, Bool) in
            let record = try await Self.channel(transaction, id)
            try await Self.requireJoined(transaction, id, userId)
            let target: (sequence: Int64, messageId: String?)
            if let messageId = args.messageId {
                let message = try await Self.message(transaction, id, messageId)
                target = (message.sequence, message.id)
            } else {
                let newest = try await Self.lastMessage(transaction, id, below: record.messageSeq + 1)
                target = (record.messageSeq, newest?.id)
            }
            var read = try await Self.readPosition(transaction, id, userId)
            guard target.sequence > read.lastReadSequence else {
                return (try await Self.counted(read, transaction), false)
            }
            read = ChannelRead(channelId: id, userId: userId, lastReadSequence: target.sequence, lastReadMessageId: target.messageId,
                               lastReadAt: Date.wireNow)
            try await transaction.save(ReadRecord(read: read))
            read = try await Self.counted(read, transaction)
            let batched = batchesReceipts(record)
            try await Self.announce(read, receipt: !batched, in: transaction)
            return (read, batched)
        }
        if batched { receipts.add(Self.seen(read), delivered: false) }
        return read
    }

    /// A read as other members see it: without the member's own counts.
    static func seen(_ read: ChannelRead) -> ChannelRead {
        var seen = read
        seen.unreadMessages = nil
        seen.unreadMentions = nil
        return seen
    }

    /// Makes a message and every one after it unread for the caller, and tells the
    /// caller's own stream (`notification.readChanged`). Members only.
    package func markUnread(_ args: MarkUnreadArgs, by userId: String) async throws -> ChannelRead {
        let id = args.channelId
        return try await events.transact(streams: [id.stream]) { transaction in
            _ = try await Self.channel(transaction, id)
            try await Self.requireJoined(transaction, id, userId)
            let first = try await Self.message(transaction, id, args.messageId)
            let before = try await Self.lastMessage(transaction, id, below: first.sequence)
            var read = ChannelRead(channelId: id, userId: userId, lastReadSequence: first.sequence - 1,
                                   lastReadMessageId: before?.id, lastReadAt: Date.wireNow)
            try await transaction.save(ReadRecord(read: read))
            read = try await Self.counted(read, transaction)
            try await Self.announce(read, receipt: false, in: transaction)
            return read
        }
    }

    /// `message.read` on the channel's stream (without the member's count) when `receipt`,
    /// and `notification.readChanged` on the member's own stream.
    private static func announce(_ read: ChannelRead, receipt: Bool, in transaction: any StorageTransaction) async throws {
        var appends: [EventAppend] = []
        if receipt {
            appends.append(try event(ChatEventType.messageRead, on: read.channelId.stream,
                                     ChatEvent(type: "", channelId: read.channelId, actorId: read.userId, read: seen(read))))
        }
        appends.append(try event(ChatEventType.readChanged, on: StreamName.user(read.userId),
                                 ChatEvent(type: "", channelId: read.channelId, actorId: read.userId, read: read)))
        _ = try await transaction.append(appends)
    }

    /// A page of the members' read positions, the furthest read first, each with its
    /// delivery position when that is further; the caller's own carries its unread count.
    /// Members only.
    package func reads(_ args: ChannelReadsArgs, by reader: String) async throws -> Page<ChannelRead> {
        let limit = try Paging.limit(args.limit ?? Limits.maxPageSize)
        _ = try await Self.channel(storage, args.channelId)
        try await Self.requireJoined(storage, args.channelId, reader)
        var query = RecordQuery(kind: ReadRecord.recordKind, scope: args.channelId.rawValue)
        query.descending = true
        query.after = try args.cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(ReadRecord.self, query, limit: limit)
        var items = try await Self.withDeliveries(page.map(\.read), args.channelId, storage)
        if let mine = items.firstIndex(where: { $0.userId == reader }) {
            items[mine] = try await Self.counted(items[mine], storage)
        }
        return Page(items: items, next: next)
    }

    /// The caller's unread messages in each channel it has joined (up to
    /// ``unreadChannelsLimit`` channels, most recently active first), their total, and
    /// how many channels have any.
    package func unreadCounts(of userId: String) async throws -> UnreadCounts {
        try await Self.unreadCounts(of: userId, in: storage)
    }

    /// ``unreadCounts(of:)`` read from `reader` (the push badge reads it too).
    package static func unreadCounts(of userId: String, in storage: any RecordReading) async throws -> UnreadCounts {
        var query = RecordQuery(kind: ChannelRecord.recordKind, limit: unreadChannelsLimit)
        query.via = (MembershipRecord.recordKind, userId, [ChatMemberState.joined.rawValue])
        query.descending = true
        let channels = try await storage.list(ChannelRecord.self, query)
        var counts: [ChannelUnread] = []
        for channel in channels {
            let id = channel.channel.id
            let read = try await readPosition(storage, id, userId)
            let caughtUp = read.lastReadSequence >= channel.messageSeq
            let unread = caughtUp ? 0 : try await unreadCount(storage, id, after: read.lastReadSequence)
            let mentions = unread == 0 ? 0 : try await unreadMentions(storage, id, userId, after: read.lastReadSequence)
            counts.append(ChannelUnread(channelId: id, unreadMessages: unread, lastReadSequence: read.lastReadSequence, unreadMentions: mentions))
        }
        return UnreadCounts(totalUnreadMessages: counts.reduce(0) { $0 + $1.unreadMessages },
                            unreadChannels: counts.count { $0.unreadMessages > 0 },
                            totalUnreadMentions: counts.reduce(0) { $0 + $1.unreadMentions }, channels: counts)
    }
}
