import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Keeps `message`'s searchable words in `transaction`: a text record (``TextSearch``)
    /// in the channel's scope with the message's id, its sender and its time, written with
    /// the message so that the index is never behind it; removed when the message is
    /// deleted or has no words left. `words` are those of its text when already found.
    static func index(_ message: ChatMessage, words: [String]? = nil, in transaction: any StorageTransaction) async throws {
        let words = message.isDeleted ? [] : words ?? TextSearch.words(message.text)
        let scope = message.channelId.rawValue
        guard !words.isEmpty else {
            try await transaction.deleteRecord(kind: TextSearch.kind, scope: scope, id: message.id)
            return
        }
        try await transaction.put(Record(kind: TextSearch.kind, scope: scope, id: message.id, sort: Paging.millis(message.createdAt),
                                         tag: message.senderId, data: words.joined(separator: " ")))
    }

    /// A page of the messages of the reader's joined channels (or of one of them) that
    /// hold every word of the keyword, as the index has them now.
    package func searchMessages(_ args: MessageSearchQuery, by reader: String) async throws -> Page<ChatMessage> {
        let limit = try Paging.limit(args.limit)
        let terms = TextSearch.words(args.keyword)
        guard args.keyword.count <= Limits.maxSearchKeywordLength, (1...Limits.maxSearchTerms).contains(terms.count) else {
            throw GreenroomError(.invalidParameterValue,
                                 "keyword must hold 1–\(Limits.maxSearchTerms) words of letters or digits, in at most \(Limits.maxSearchKeywordLength) characters")
        }
        if let from = args.from, let to = args.to, from >= to { throw GreenroomError(.invalidParameterValue, "from must be before to") }
        var search = TextSearch(terms: Array(Set(terms)).sorted())
        if let channel = args.channelId {
            _ = try await Self.channel(storage, channel)
            try await Self.requireJoined(storage, channel, reader)
            search.scope = channel.rawValue
        } else {
            search.viaKind = MembershipRecord.recordKind
            search.viaScope = reader
            search.viaTags = [ChatMemberState.joined.rawValue]
        }
        search.tag = args.senderId
        search.sortFrom = args.from.map(Paging.millis)
        search.sortBelow = args.to.map(Paging.millis)
        search.order = args.order == .relevance ? .relevance : .newest
        search.limit = limit + 1
        if let cursor = args.cursor {
            if search.order == .newest {
                search.after = try RecordCursor.decode(cursor)
            } else {
                guard let offset = Int(try Cursor.decode(cursor)), (0...Limits.maxSearchOffset).contains(offset) else {
                    throw GreenroomError(.invalidParameterValue, "cursor is not one this server gave")
                }
                search.offset = offset
            }
        }
        let hits = try await storage.searchTexts(search)
        let page = Array(hits.prefix(limit))
        var next: String?
        if hits.count > limit, let last = page.last {
            if search.order == .newest {
                next = RecordCursor(sort: last.sort, id: last.id).encoded
            } else if search.offset + limit < Limits.maxSearchOffset {
                next = Cursor.encode(String(search.offset + limit))
            }
        }
        var messages: [String: ChatMessage] = [:]
        for (scope, ids) in Dictionary(grouping: page, by: \.scope).mapValues({ $0.map(\.id) }) {
            var query = RecordQuery(kind: MessageRecord.recordKind, scope: scope, limit: ids.count)
            query.ids = ids
            for record in try await storage.list(MessageRecord.self, query) where !record.message.isDeleted {
                messages[record.message.id] = record.message
            }
        }
        return Page(items: try await hidingBlocked(page.compactMap { messages[$0.id] }, from: reader), next: next)
    }
}
