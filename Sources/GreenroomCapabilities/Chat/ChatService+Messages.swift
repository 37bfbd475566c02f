import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Stores a member's message and puts `message.new` on the channel's stream, in one
    /// transaction; a resend with the same idempotency key returns the first message.
    package func send(_ args: MessageSendArgs, by sender: String) async throws -> ChatMessage {
        let attachmentIds = try Self.checkAttachments(args.attachmentIds)
        try Self.checkText(args.text, extraData: args.extraData ?? [:], attachments: attachmentIds.count)
        if let key = args.idempotencyKey, !(1...Limits.maxKeyLength).contains(key.count) {
            throw GreenroomError(.invalidParameterValue, "idempotencyKey must be 1–\(Limits.maxKeyLength) characters")
        }
        let id = args.channelId
        let mentions = try Self.checkMentions(args.mentionedUserIds)
        for case let messageId? in [args.parentMessageId, args.threadParentId] where !(1...Limits.maxKeyLength).contains(messageId.count) {
            throw GreenroomError(.invalidParameterValue, "a message id is 1–\(Limits.maxKeyLength) characters")
        }
        let keyId = args.idempotencyKey.map { MessageKeyRecord.id(sender: sender, key: $0) }
        // The words for the search index, found here rather than on the writer's thread.
        let words = TextSearch.words(args.text)
        var reads = [RecordKey(kind: ChannelRecord.recordKind, id: id.rawValue),
                     RecordKey(kind: MemberRecord.recordKind, scope: id.rawValue, id: sender),
                     RecordKey(kind: BlocklistRecord.recordKind, id: BlocklistRecord.id)]
        reads += mentions.map { RecordKey(kind: MemberRecord.recordKind, scope: id.rawValue, id: $0) }
        if let keyId { reads.append(RecordKey(kind: MessageKeyRecord.recordKind, scope: id.rawValue, id: keyId)) }
        for case let messageId? in [args.parentMessageId, args.threadParentId] {
            reads.append(RecordKey(kind: MessageRecord.recordKind, scope: id.rawValue, id: messageId))
        }
        return try await events.transact(prefetch: reads, streams: [id.stream]) { transaction in
            var record = try await Self.channel(transaction, id)
            guard var member = try await transaction.load(MemberRecord.self, scope: id.rawValue, id: sender),
                  member.member.state == .joined else {
                throw GreenroomError(.notChannelMember, "\(sender) is not a member of channel \(id)")
            }
            if let keyId, let earlier = try await transaction.load(MessageKeyRecord.self, scope: id.rawValue, id: keyId),
               let stored = try await transaction.load(MessageRecord.self, scope: id.rawValue, id: earlier.messageId) {
                return stored.message
            }
            for userId in mentions {
                guard try await Self.member(transaction, id, userId)?.state == .joined else {
                    throw GreenroomError(.invalidParameterValue, "mentionedUserIds: \(userId) is not a member of channel \(id)")
                }
            }
            let now = Date.wireNow
            try Self.checkMaySend(member, in: record, at: now)
            let text = try await screen(args.text, transaction)
            var parent: MessageRecord?
            if let parentId = args.threadParentId { parent = try await Self.threadParent(transaction, id, parentId) }
            var quoted: QuotedMessage?
            if let quotedId = args.parentMessageId { quoted = try await Self.quotable(transaction, id, quotedId) }
            record.messageSeq += 1
            var message = ChatMessage(id: "m" + RandomHex.timeOrdered(now, randomBytes: 10), channelId: id, senderId: sender, text: text,
                                      extraData: args.extraData ?? [:], sequence: record.messageSeq, createdAt: now, updatedAt: now,
                                      mentionedUserIds: mentions.isEmpty ? nil : mentions)
            message.parentMessageId = quoted?.id
            message.quotedMessage = quoted
            message.threadParentId = parent?.message.id
            if !attachmentIds.isEmpty {
                message.attachments = try await ChatFiles.attach(attachmentIds, to: message.id, in: id, by: sender, transaction)
            }
            if let quoted {
                try await transaction.save(QuoteRecord(channelId: id, quotedId: quoted.id, quotingId: message.id))
            }
            try await transaction.save(MessageRecord(message: message))
            try await Self.index(message, words: text == args.text ? words : nil, in: transaction)
            var thread: ChatThread?
            if var threadParent = parent {
                // A reply counts in its thread, not in the channel's activity or reads.
                thread = try await Self.addReply(message, to: &threadParent, transaction)
            } else {
                for userId in mentions where userId != sender {
                    try await transaction.save(MentionRecord(channelId: id, userId: userId, messageId: message.id, sequence: message.sequence))
                }
                record.channel.lastMessageAt = now
                // Sending reads the channel up to one's own message.
                try await transaction.save(ReadRecord(read: ChannelRead(
                    channelId: id, userId: sender, lastReadSequence: message.sequence, lastReadMessageId: message.id, lastReadAt: now)))
            }
            try await transaction.save(record)
            let slowMode = record.channel.slowModeSeconds != nil && !member.member.isOperator
            if member.sentIn != true || slowMode {
                if member.sentIn != true {
                    _ = try await transaction.insert(try SentInRecord(userId: sender, channelId: id).asRecord())
                }
                member.sentIn = true
                // Slow mode counts from each message; outside it nothing is kept per message.
                member.lastSentAt = slowMode ? now : nil
                try await transaction.save(member)
            }
            if let keyId {
                try await transaction.save(MessageKeyRecord(channelId: id, key: keyId, messageId: message.id))
            }
            _ = try await transaction.append([try Self.event(ChatEventType.messageNew, on: id.stream,
                                                             ChatEvent(type: "", channelId: id, message: message, actorId: sender, thread: thread))])
            return message
        }
    }

    /// Replaces a message's text and extra data. The sender only.
    package func updateMessage(_ args: MessageUpdateArgs, by userId: String) async throws -> ChatMessage {
        try Self.checkText(args.text, extraData: args.extraData ?? [:])
        let text = try await screen(args.text, storage)
        return try await changeMessage(MessageRef(channelId: args.channelId, messageId: args.messageId), by: userId) { message in
            message.text = text
            message.extraData = args.extraData ?? [:]
        }
    }

    /// Sets text and extra data keys, removes the keys in `unsetProperties`. The sender only;
    /// the app's backend (`userId` `nil`) may change any message.
    package func partialUpdateMessage(_ args: MessagePartialUpdateArgs, by userId: String?) async throws -> ChatMessage {
        let unset = args.unsetProperties ?? []
        if let set = args.extraData, let both = unset.first(where: { set[$0] != nil }) {
            throw GreenroomError(.invalidParameterValue, "\(both) is both set and unset")
        }
        if unset.contains("text") { throw GreenroomError(.invalidParameterValue, "text cannot be unset; set it instead") }
        var text = args.text
        if let given = text { text = try await screen(given, storage) }
        return try await changeMessage(MessageRef(channelId: args.channelId, messageId: args.messageId), by: userId) { [text] message in
            if let text { message.text = text }
            for (key, value) in args.extraData ?? [:] { message.extraData[key] = value }
            for key in unset { message.extraData[key] = nil }
            try Self.checkText(message.text, extraData: message.extraData, attachments: message.attachments?.count ?? 0)
        }
    }

    private func changeMessage(_ ref: MessageRef, by userId: String?, _ body: @escaping @Sendable (inout ChatMessage) throws -> Void) async throws -> ChatMessage {
        try await mutateMessage(ref, by: userId, event: ChatEventType.messageUpdated, then: { transaction, edited in
            try await Self.refreshQuotes(of: edited, transaction)
            try await Self.index(edited, in: transaction)
            return nil
        }) { message, _ in
            guard userId == nil || message.senderId == userId else {
                throw GreenroomError(.notMessageSender, "only \(message.senderId), who sent it, may edit message \(message.id)")
            }
            try body(&message)
            return nil
        }
    }

    /// Deletes a message (it keeps its place in the history, emptied). Its sender or an
    /// operator; the app's backend (`userId` `nil`) any message. In the same transaction
    /// every stored event of the channel that carries the message (`message.new`, its
    /// edits and reactions) is emptied the same way, so its text and extra data are in no
    /// event a member can replay.
    package func deleteMessage(_ ref: MessageRef, by userId: String?) async throws -> ChatMessage {
        let carried = Locked<[ChatAttachment]>([])
        let removed = Locked<[String]>([])
        let deleted = try await mutateMessage(ref, by: userId, event: ChatEventType.messageDeleted, allowDeleted: true, then: { transaction, deleted in
            try await Self.redact(deleted, in: transaction)
            try await Self.index(deleted, in: transaction)
            let files = try await ChatFiles.drop(filesOf: deleted, carried.value, in: transaction)
            removed.withLock { $0 = files }
            return try await Self.forgetDeleted([deleted], in: deleted.channelId, transaction)[deleted.threadParentId ?? ""]
        }) { message, member in
            guard userId == nil || message.senderId == userId || member?.isOperator == true else {
                throw GreenroomError(.notMessageSender, "only the sender or an operator may delete message \(message.id)")
            }
            guard message.deletedAt == nil else { return nil }
            carried.withLock { $0 = message.attachments ?? [] }
            Self.empty(&message)
            return nil
        }
        removeFolders(removed.value)
        return deleted
    }

    /// Adds (or replaces) the caller's reaction of a type. Members only.
    package func addReaction(_ args: ReactionArgs, by userId: String) async throws -> ChatMessage {
        try Self.checkReaction(args)
        return try await mutateMessage(MessageRef(channelId: args.channelId, messageId: args.messageId), by: userId, event: ChatEventType.reactionNew) { message, _ in
            let reaction = ChatReaction(type: args.type, userId: userId, extraData: args.extraData ?? [:], createdAt: Date.wireNow)
            if let index = message.reactions.firstIndex(where: { $0.type == args.type && $0.userId == userId }) {
                message.reactions[index] = reaction
            } else {
                message.reactions.append(reaction)
            }
            return reaction
        }
    }

    /// Removes the caller's reaction of a type. Members only.
    package func removeReaction(_ args: ReactionArgs, by userId: String) async throws -> ChatMessage {
        try Self.checkReaction(args)
        return try await mutateMessage(MessageRef(channelId: args.channelId, messageId: args.messageId), by: userId, event: ChatEventType.reactionDeleted) { message, _ in
            guard let index = message.reactions.firstIndex(where: { $0.type == args.type && $0.userId == userId }) else {
                throw GreenroomError(.notFound, "\(userId) has no \(args.type) reaction on message \(message.id)")
            }
            return message.reactions.remove(at: index)
        }
    }

    /// Changes a message in a transaction with the channel locked: the caller must have
    /// joined (the app's backend, `userId` `nil`, need not, and `body` gets no member);
    /// `body` checks the caller's right, changes the message and returns the reaction the
    /// event is about, if any; `then` does what follows from the change and returns the
    /// thread's counts when they changed. An unchanged message writes no event.
    func mutateMessage(
        _ ref: MessageRef, by userId: String?, event type: String, allowDeleted: Bool = false,
        then: (@Sendable (any StorageTransaction, ChatMessage) async throws -> ChatThread?)? = nil,
        _ body: @escaping @Sendable (inout ChatMessage, ChatChannelMember?) throws -> ChatReaction?
    ) async throws -> ChatMessage {
        try await events.transact { transaction in
            _ = try await Self.channel(transaction, ref.channelId)
            var member: ChatChannelMember?
            if let userId { member = try await Self.requireJoined(transaction, ref.channelId, userId) }
            guard var record = try await transaction.load(MessageRecord.self, scope: ref.channelId.rawValue, id: ref.messageId),
                  allowDeleted || !record.message.isDeleted else {
                throw GreenroomError(.messageNotFound, "no message \(ref.messageId) in channel \(ref.channelId)")
            }
            let before = record.message
            let reaction = try body(&record.message, member)
            guard record.message != before else { return record.message }
            record.message.updatedAt = Date.wireNow
            try await transaction.save(record)
            let thread = try await then?(transaction, record.message)
            _ = try await transaction.append([try Self.event(type, on: ref.channelId.stream, ChatEvent(
                type: "", channelId: ref.channelId, message: record.message, reaction: reaction, actorId: userId, thread: thread))])
            return record.message
        }
    }

    /// Marks `message` deleted and empties it: its text, extra data, reactions, mentions,
    /// pin and quote go (the ids of the quoted message and thread parent stay).
    package static func empty(_ message: inout ChatMessage) {
        message.deletedAt = Date.wireNow
        message.text = ""
        message.extraData = [:]
        message.reactions = []
        message.mentionedUserIds = nil
        message.pinnedAt = nil
        message.pinnedBy = nil
        message.quotedMessage = nil
        message.attachments = nil
    }

    /// The mentioned user ids without repeats, in their order. - Throws:
    /// `invalidParameterValue` past ``Limits/maxMentions`` or for an empty id.
    package static func checkMentions(_ ids: [String]?) throws -> [String] {
        var seen = Set<String>()
        let unique = (ids ?? []).filter { seen.insert($0).inserted }
        guard unique.count <= Limits.maxMentions else {
            throw GreenroomError(.invalidParameterValue, "a message may mention at most \(Limits.maxMentions) members")
        }
        guard unique.allSatisfy({ (1...Limits.maxKeyLength).contains($0.count) }) else {
            throw GreenroomError(.invalidParameterValue, "mentionedUserIds holds an empty or overlong id")
        }
        return unique
    }

    /// Empties `deleted`'s copies in the stored events of its channel: each event's
    /// `message` becomes the deleted message, and a reaction's extra data goes.
    package static func redact(_ deleted: ChatMessage, in transaction: any StorageTransaction) async throws {
        try await redact([deleted.id: deleted], in: deleted.channelId, containing: "\"\(deleted.id)\"", transaction)
    }

    /// Empties the copies of the deleted messages `deleted` (by id) in the stored events of
    /// `channel` whose data contains `needle`, and their quotes in other messages' events.
    package static func redact(_ deleted: [String: ChatMessage], in channel: ChannelId, containing needle: String,
                       _ transaction: any StorageTransaction) async throws {
        let emptied = try deleted.mapValues { try RawJSON(encoding: $0) }
        let quotes = try deleted.mapValues { try RawJSON(encoding: QuotedMessage($0)) }
        try await transaction.rewriteEvents(stream: channel.stream, containing: needle) { event in
            guard var data = event.data.dictionaryValue, var carried = data["message"]?.dictionaryValue else { return nil }
            if let id = carried["id"]?.stringValue, let message = emptied[id] {
                data["message"] = message
                if var reaction = data["reaction"]?.dictionaryValue {
                    reaction["extraData"] = [:]
                    data["reaction"] = .dictionary(reaction)
                }
                return .dictionary(data)
            }
            guard let quotedId = carried["quotedMessage"]?["id"]?.stringValue, let quote = quotes[quotedId] else { return nil }
            carried["quotedMessage"] = quote
            data["message"] = .dictionary(carried)
            return .dictionary(data)
        }
    }

    /// A page of history, oldest first: the newest `limit` before a message, the oldest
    /// `limit` after one, or the newest `limit`. `next` names the message to page from
    /// when more are there.
    package func listMessages(_ args: MessageListArgs, by reader: String) async throws -> Page<ChatMessage> {
        let id = args.channelId
        let limit = try await checkHistoryPage(id, before: args.before, after: args.after, limit: args.limit, reader: reader)
        var query = RecordQuery(kind: MessageRecord.recordKind, scope: id.rawValue, limit: limit + 1)
        query.tags = MessageRecord.channelTags
        if let anchor = args.before ?? args.after {
            guard let message = try await storage.load(MessageRecord.self, scope: id.rawValue, id: anchor)?.message else {
                throw GreenroomError(.messageNotFound, "no message \(anchor) in channel \(id)")
            }
            if args.before != nil { query.sortBelow = message.sequence } else { query.sortAbove = message.sequence }
        }
        query.descending = args.after == nil
        let found = try await storage.list(MessageRecord.self, query).map(\.message)
        var page = Array(found.prefix(limit))
        if query.descending { page.reverse() }
        let more = found.count > limit
        let next = more ? (args.after == nil ? page.first?.id : page.last?.id) : nil
        // Messages of users the reader blocked are left out after the cursor is taken, so
        // a page may hold fewer than `limit`.
        return Page(items: try await hidingBlocked(page, from: reader), next: next)
    }

    /// The page size of a page of a channel's history (or a thread's), once the request
    /// names at most one anchor and the reader has joined the channel.
    func checkHistoryPage(_ channel: ChannelId, before: String?, after: String?, limit: Int?, reader: String) async throws -> Int {
        let limit = try Paging.limit(limit)
        guard before == nil || after == nil else {
            throw GreenroomError(.invalidParameterValue, "give before or after, not both")
        }
        _ = try await Self.channel(storage, channel)
        try await Self.requireJoined(storage, channel, reader)
        return limit
    }

    package static func checkText(_ text: String, extraData: [String: RawJSON], attachments: Int = 0) throws {
        guard text.count <= Limits.maxMessageTextLength else {
            throw GreenroomError(.payloadTooLarge, "text is \(text.count) characters; the limit is \(Limits.maxMessageTextLength)")
        }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || !extraData.isEmpty || attachments > 0 else {
            throw GreenroomError(.invalidParameterValue, "a message needs text, extra data or attachments")
        }
        if let error = Limits.checkExtraData(extraData) { throw error }
    }

    /// The attachment ids without repeats, in their order. - Throws: `invalidParameterValue`
    /// past ``Limits/maxAttachments`` or for an id that is not one.
    package static func checkAttachments(_ ids: [String]?) throws -> [String] {
        var seen = Set<String>()
        let unique = (ids ?? []).filter { seen.insert($0).inserted }
        guard unique.count <= Limits.maxAttachments else {
            throw GreenroomError(.invalidParameterValue, "a message may carry at most \(Limits.maxAttachments) attachments")
        }
        guard unique.allSatisfy(Limits.isValidId) else {
            throw GreenroomError(.invalidParameterValue, "attachmentIds holds an id that is not one")
        }
        return unique
    }

    package static func checkReaction(_ args: ReactionArgs) throws {
        guard (1...64).contains(args.type.count) else {
            throw GreenroomError(.invalidParameterValue, "a reaction type must be 1–64 characters")
        }
        if let error = Limits.checkExtraData(args.extraData ?? [:]) { throw error }
    }
}
