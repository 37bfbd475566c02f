import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Read positions and unread counts, on each storage backend: the chat service as a caller
/// uses it, and every count checked against one computed from the channel's stored log.
@Suite("Chat read state on every backend", .wholeRun)
struct ChatReadStateTests {
    /// The unread messages of `userId` computed from the channel's stored events alone:
    /// messages announced after its read position (as `channel.reads` gives it), minus those
    /// a later event deleted.
    static func unreadFromLog(_ harness: DomainRuleTests.Harness, _ chat: ChatService, _ channel: ChannelId, _ userId: String) async throws -> Int {
        let position = try await chat.reads(ChannelReadsArgs(channelId: channel), by: userId).items.first { $0.userId == userId }?.lastReadSequence ?? 0
        var live: [String: Int64] = [:]
        for event in try await harness.stored(channel.stream) {
            guard let chatEvent = ChatEvent(event), let message = chatEvent.message, !message.isThreadReply else { continue }
            if event.type == ChatEventType.messageNew { live[message.id] = message.sequence }
            if event.type == ChatEventType.messageDeleted { live[message.id] = nil }
        }
        return live.values.count { $0 > position }
    }

    @Test("unread counts through sends, reads, unreads, deletes, joins and leaves match the log; reads list positions; a read is announced to the channel and to the reader", arguments: Backend.allCases)
    func unreadCounts(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("lobby")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol"] { _ = try await chat.join(id, userId: user) }

            func unread(_ user: String) async throws -> Int {
                let counts = try await chat.unreadCounts(of: user)
                let here = counts.channels.first { $0.channelId == id }?.unreadMessages ?? -1
                #expect(counts.totalUnreadMessages == here, "\(user)'s total is its one channel's count")
                let fromLog = try await Self.unreadFromLog(harness, chat, id, user)
                #expect(here == fromLog, "\(user): the server counts \(here), the log \(fromLog)")
                return here
            }
            func send(_ user: String, _ text: String) async throws -> ChatMessage {
                try await chat.send(MessageSendArgs(channelId: id, text: text), by: user)
            }

            let first = try await send("alice", "one")
            let second = try await send("alice", "two")
            _ = try await send("alice", "three")
            #expect(try await unread("bob") == 3)
            // Sending reads the channel up to one's own message.
            _ = try await send("bob", "four")
            #expect(try await unread("bob") == 0)
            #expect(try await unread("carol") == 4)
            #expect(try await unread("alice") == 1)
            #expect(try await chat.unreadCounts(of: "carol").unreadChannels == 1)

            // A deleted message is no longer unread, for anyone.
            _ = try await chat.deleteMessage(MessageRef(channelId: id, messageId: second.id), by: "alice")
            #expect(try await unread("carol") == 3)
            #expect(try await unread("alice") == 1)

            // Read up to a message, then back: the position never moves back by markRead.
            let read = try await chat.markRead(MarkReadArgs(channelId: id, messageId: first.id), by: "carol")
            #expect(read.lastReadSequence == first.sequence && read.lastReadMessageId == first.id && read.unreadMessages == 2)
            #expect(try await unread("carol") == 2)
            let unmoved = try await chat.markRead(MarkReadArgs(channelId: id, messageId: first.id), by: "carol")
            #expect(unmoved.lastReadSequence == first.sequence && unmoved.unreadMessages == 2)
            let back = try await chat.markUnread(MarkUnreadArgs(channelId: id, messageId: first.id), by: "carol")
            #expect(back.lastReadSequence == first.sequence - 1 && back.lastReadMessageId == nil && back.unreadMessages == 3)
            #expect(try await unread("carol") == 3)
            let all = try await chat.markRead(MarkReadArgs(channelId: id), by: "carol")
            #expect(all.unreadMessages == 0 && all.lastReadSequence == 4)
            #expect(try await unread("carol") == 0)
            #expect(await refusal { _ = try await chat.markRead(MarkReadArgs(channelId: id, messageId: second.id), by: "carol") } == .messageNotFound)
            #expect(await refusal { _ = try await chat.markRead(MarkReadArgs(channelId: id), by: "mallory") } == .notChannelMember)
            #expect(await refusal { _ = try await chat.reads(ChannelReadsArgs(channelId: id), by: "mallory") } == .notChannelMember)

            // A member who joins later has read what came before; one who leaves and comes
            // back starts from where the channel is then.
            _ = try await chat.join(id, userId: "dave")
            #expect(try await unread("dave") == 0)
            _ = try await send("alice", "five")
            #expect(try await unread("dave") == 1)
            #expect(try await unread("carol") == 1)
            try await chat.leave(id, userId: "carol")
            #expect(try await chat.unreadCounts(of: "carol").channels.isEmpty)
            _ = try await send("alice", "six")
            _ = try await chat.join(id, userId: "carol")
            #expect(try await unread("carol") == 0)
            #expect(try await unread("dave") == 2)

            // Every member's position, the furthest first; the caller's own with its count.
            let reads = try await chat.reads(ChannelReadsArgs(channelId: id), by: "dave").items
            #expect(reads.map(\.userId) == ["carol", "alice", "dave", "bob"], "by position (6, 6, 4, 4), ties by id from the end")
            #expect(reads.first { $0.userId == "dave" }?.unreadMessages == 2)
            #expect(reads.first { $0.userId == "alice" }?.unreadMessages == nil)

            // markRead told the channel (without the reader's count) and the reader's own
            // stream (with it); markUnread told the reader alone.
            let channelReads = try await harness.stored(id.stream).filter { $0.type == ChatEventType.messageRead }.compactMap { ChatEvent($0)?.read }
            #expect(channelReads.map(\.userId) == ["carol", "carol"] && channelReads.allSatisfy { $0.unreadMessages == nil })
            let carolNotes = try await harness.stored(StreamName.user("carol")).filter { $0.type == ChatEventType.readChanged }.compactMap { ChatEvent($0)?.read }
            #expect(carolNotes.map(\.unreadMessages) == [2, 3, 0])
        }
    }

    @Test("mentions: validated against the members, counted in unread mentions until read, gone with the message's deletion and the member's departure", arguments: Backend.allCases)
    func mentions(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("mentions")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol"] { _ = try await chat.join(id, userId: user) }
            func mentions(_ user: String) async throws -> (channel: Int, total: Int) {
                let counts = try await chat.unreadCounts(of: user)
                return (counts.channels.first { $0.channelId == id }?.unreadMentions ?? -1, counts.totalUnreadMentions)
            }

            let first = try await chat.send(MessageSendArgs(channelId: id, text: "hi @bob @carol", mentionedUserIds: ["bob", "carol", "bob", "alice"]), by: "alice")
            #expect(first.mentionedUserIds == ["bob", "carol", "alice"], "repeats removed, order kept")
            _ = try await chat.send(MessageSendArgs(channelId: id, text: "again @bob", mentionedUserIds: ["bob"]), by: "alice")
            #expect(try await mentions("bob") == (2, 2))
            #expect(try await mentions("carol") == (1, 1))
            #expect(try await mentions("alice") == (0, 0), "mentioning oneself counts nothing")
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "x", mentionedUserIds: ["mallory"]), by: "alice") } == .invalidParameterValue)
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "x", mentionedUserIds: (0...25).map { "u\($0)" }), by: "alice") } == .invalidParameterValue)

            let deleted = try await chat.deleteMessage(MessageRef(channelId: id, messageId: first.id), by: "alice")
            #expect(deleted.mentionedUserIds == nil)
            #expect(try await mentions("bob") == (1, 1))
            #expect(try await mentions("carol") == (0, 0))
            let read = try await chat.markRead(MarkReadArgs(channelId: id), by: "bob")
            #expect(read.unreadMentions == 0 && read.unreadMessages == 0)
            #expect(try await mentions("bob") == (0, 0))

            _ = try await chat.send(MessageSendArgs(channelId: id, text: "@carol", mentionedUserIds: ["carol"]), by: "bob")
            #expect(try await mentions("carol") == (1, 1))
            try await chat.leave(id, userId: "carol")
            func stored(_ user: String) async throws -> Int {
                var query = RecordQuery(kind: MentionRecord.recordKind, scope: id.rawValue)
                query.tags = [user]
                return try await storage.countRecords(query)
            }
            #expect(try await stored("carol") == 0, "a departed member's mentions go")
            #expect(try await stored("bob") == 1, "a read mention stays with its message")
        }
    }

    @Test("messages deleted before read positions existed are tagged deleted by the migration", arguments: [Backend.sqlite, .postgres])
    func migrationTagsDeletedMessages(_ backend: Backend) async throws {
        try await withStorage(backend, migrate: false) { storage, _ in
            try await storage.migrate(upTo: 6)
            try await storage.transact(retentionCount: 100) { transaction in
                try await transaction.put(Record(kind: "message", scope: "c", id: "gone", sort: 1, data: #"{"message":{"id":"gone","deletedAt":1.5}}"#))
                try await transaction.put(Record(kind: "message", scope: "c", id: "kept", sort: 2, data: #"{"message":{"id":"kept"}}"#))
                return true
            }
            try await storage.migrate()
            #expect(try await storage.record(kind: "message", scope: "c", id: "gone")?.tag == "deleted")
            #expect(try await storage.record(kind: "message", scope: "c", id: "kept")?.tag == "")
        }
    }
}
