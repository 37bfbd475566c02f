import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Threads and quoted replies on each storage backend, through the chat service as a caller
/// uses it; the thread's counts are checked against counts computed from the stored log.
@Suite("Chat threads and quotes on every backend", .wholeRun)
struct ChatThreadTests {
    /// A thread's replies not deleted, from the channel's stored events alone.
    static func repliesFromLog(_ harness: DomainRuleTests.Harness, _ channel: ChannelId, _ parentId: String) async throws -> Set<String> {
        var live = Set<String>()
        for event in try await harness.stored(channel.stream) {
            guard let message = ChatEvent(event)?.message, message.threadParentId == parentId else { continue }
            if event.type == ChatEventType.messageNew { live.insert(message.id) }
            if event.type == ChatEventType.messageDeleted { live.remove(message.id) }
        }
        return live
    }

    @Test("replies: the parent's count and latest repliers, participants and unread replies through replies, deletes, reads and a departure match the log; replies stay out of the channel's list and counts", arguments: Backend.allCases)
    func threads(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("threads")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol"] { _ = try await chat.join(id, userId: user) }
            let parent = try await chat.send(MessageSendArgs(channelId: id, text: "question"), by: "alice")
            func reply(_ user: String, _ text: String) async throws -> ChatMessage {
                try await chat.send(MessageSendArgs(channelId: id, text: text, threadParentId: parent.id), by: user)
            }
            func stored() async throws -> ChatMessage {
                try #require(try await storage.load(MessageRecord.self, scope: id.rawValue, id: parent.id)?.message)
            }
            func unread(_ user: String) async throws -> Int? {
                try await chat.threads(UserThreadsArgs(), of: user).items.first { $0.parentMessageId == parent.id }?.unreadReplies
            }
            func checkAgainstLog() async throws {
                let fromLog = try await Self.repliesFromLog(harness, id, parent.id)
                #expect(try await stored().replyCount == fromLog.count, "the parent counts what the log holds")
                let listed = try await chat.replies(MessageRepliesArgs(channelId: id, parentMessageId: parent.id, limit: 100), by: "alice").items
                #expect(Set(listed.filter { !$0.isDeleted }.map(\.id)) == fromLog)
            }

            let first = try await reply("bob", "one")
            #expect(first.threadParentId == parent.id)
            let announced = try await harness.stored(id.stream).last.flatMap(ChatEvent.init)
            #expect(announced?.type == ChatEventType.messageNew && announced?.message?.id == first.id)
            #expect(announced?.thread?.replyCount == 1 && announced?.thread?.participantCount == 2 && announced?.thread?.latestReplierIds == ["bob"])
            let second = try await reply("carol", "two")
            let third = try await reply("bob", "three")
            #expect(try await stored().replyCount == 3)
            #expect(try await stored().latestReplierIds == ["bob", "carol"])
            #expect(try await stored().lastReplyAt == third.createdAt)
            try await checkAgainstLog()
            let participants = try await chat.threadParticipants(ThreadPageArgs(channelId: id, parentMessageId: parent.id), by: "carol").items
            #expect(participants.map(\.userId) == ["alice", "bob", "carol"])
            // The parent's sender has every reply unread; a replier has read up to its reply.
            #expect(try await unread("alice") == 3)
            #expect(try await unread("bob") == 0)
            #expect(try await unread("carol") == 1)

            // Replies are not the channel's messages: not listed with them, not unread there.
            #expect(try await chat.listMessages(MessageListArgs(channelId: id), by: "carol").items.map(\.id) == [parent.id])
            let carolCounts = try await chat.unreadCounts(of: "carol")
            #expect(carolCounts.totalUnreadMessages == 1, "carol has the parent unread, not the replies")
            #expect(try await chat.unreadCounts(of: "alice").totalUnreadMessages == 0)

            // The thread pages like the channel.
            let newest = try await chat.replies(MessageRepliesArgs(channelId: id, parentMessageId: parent.id, limit: 2), by: "carol")
            #expect(newest.items.map(\.id) == [second.id, third.id] && newest.next == second.id)
            let older = try await chat.replies(MessageRepliesArgs(channelId: id, parentMessageId: parent.id, before: second.id, limit: 2), by: "carol")
            #expect(older.items.map(\.id) == [first.id] && older.next == nil)
            let later = try await chat.replies(MessageRepliesArgs(channelId: id, parentMessageId: parent.id, after: first.id, limit: 1), by: "carol")
            #expect(later.items.map(\.id) == [second.id] && later.next == second.id)

            // Refusals leave nothing behind.
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "x", threadParentId: first.id), by: "bob") } == .invalidParameterValue)
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "x", threadParentId: "mnone"), by: "bob") } == .messageNotFound)
            #expect(await refusal { _ = try await chat.replies(MessageRepliesArgs(channelId: id, parentMessageId: parent.id), by: "mallory") } == .notChannelMember)
            #expect(await refusal { _ = try await chat.markRead(MarkReadArgs(channelId: id, messageId: first.id), by: "carol") } == .invalidParameterValue)
            #expect(try await stored().replyCount == 3)

            // A deleted reply leaves the counts, for everyone.
            _ = try await chat.deleteMessage(MessageRef(channelId: id, messageId: second.id), by: "carol")
            let deletion = try await harness.stored(id.stream).last.flatMap(ChatEvent.init)
            #expect(deletion?.type == ChatEventType.messageDeleted && deletion?.thread?.replyCount == 2 && deletion?.thread?.latestReplierIds == ["bob"])
            #expect(try await stored().latestReplierIds == ["bob"])
            #expect(try await unread("alice") == 2)
            try await checkAgainstLog()

            // Reading the thread: the reader's own stream hears it; a member not taking part
            // stores nothing.
            let read = try await chat.markThreadRead(ThreadRef(channelId: id, parentMessageId: parent.id), by: "alice")
            #expect(read.unreadReplies == 0 && read.lastReadSequence == third.sequence && read.replyCount == 2)
            #expect(try await unread("alice") == 0)
            let heard = try await harness.stored(StreamName.user("alice")).last.flatMap(ChatEvent.init)
            #expect(heard?.type == ChatEventType.threadReadChanged && heard?.thread?.parentMessageId == parent.id)
            _ = try await chat.join(id, userId: "dave")
            let outsider = try await chat.markThreadRead(ThreadRef(channelId: id, parentMessageId: parent.id), by: "dave")
            #expect(outsider.unreadReplies == nil && outsider.participantCount == 3)
            #expect(try await chat.threads(UserThreadsArgs(), of: "dave").items.isEmpty)
            let fourth = try await reply("bob", "four")
            #expect(try await unread("alice") == 1)
            #expect(try await chat.threads(UserThreadsArgs(), of: "alice").items.first?.parentMessage?.id == parent.id)

            // Leaving the channel ends one's part in its threads.
            try await chat.leave(id, userId: "carol")
            #expect(try await chat.threads(UserThreadsArgs(), of: "carol").items.isEmpty)
            #expect(try await chat.threadParticipants(ThreadPageArgs(channelId: id, parentMessageId: parent.id), by: "bob").items.map(\.userId) == ["alice", "bob"])

            // A deleted user's erased replies leave the counts too.
            _ = try await harness.events.transact { try await ChatService.forget(UserDeletion(userId: "bob", eraseMessages: true), in: $0) }
            let emptied = try await stored()
            #expect(emptied.replyCount == 0 && emptied.latestReplierIds == [])
            #expect(try await unread("alice") == 0)
            try await checkAgainstLog()
            #expect(fourth.threadParentId == parent.id)

            // The channel's deletion takes every thread record with it.
            try await chat.delete(id, by: "alice")
            for kind in [ThreadRecord.recordKind, QuoteRecord.recordKind] {
                #expect(try await storage.countRecords(RecordQuery(kind: kind, scope: id.rawValue)) == 0)
            }
            for kind in [ThreadReplyRecord.recordKind, ThreadParticipantRecord.recordKind] {
                #expect(try await storage.countRecords(RecordQuery(kind: kind, scope: threadScope(id, parent.id))) == 0)
            }
            for user in ["alice", "bob", "carol", "dave"] {
                #expect(try await storage.countRecords(RecordQuery(kind: UserThreadRecord.recordKind, scope: user)) == 0)
            }
        }
    }

    @Test("a quote carries the quoted message's summary, follows its edits, and loses its text when it is deleted, in the stored message and in every stored event", arguments: Backend.allCases)
    func quotes(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("quotes")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            _ = try await chat.join(id, userId: "bob")
            let quoted = try await chat.send(MessageSendArgs(channelId: id, text: "the secret plan"), by: "alice")
            let quoting = try await chat.send(MessageSendArgs(channelId: id, text: "agreed", parentMessageId: quoted.id), by: "bob")
            #expect(quoting.parentMessageId == quoted.id && quoting.quotedMessage?.text == "the secret plan" && quoting.quotedMessage?.senderId == "alice")
            // A quote in a thread reply too.
            let reply = try await chat.send(MessageSendArgs(channelId: id, text: "in thread", parentMessageId: quoted.id, threadParentId: quoting.id), by: "alice")
            #expect(reply.quotedMessage?.id == quoted.id && reply.threadParentId == quoting.id)

            func current(_ message: ChatMessage) async throws -> QuotedMessage? {
                try await storage.load(MessageRecord.self, scope: id.rawValue, id: message.id)?.message.quotedMessage
            }
            _ = try await chat.updateMessage(MessageUpdateArgs(channelId: id, messageId: quoted.id, text: "the revised plan"), by: "alice")
            #expect(try await current(quoting)?.text == "the revised plan")
            #expect(try await current(reply)?.text == "the revised plan")

            _ = try await chat.deleteMessage(MessageRef(channelId: id, messageId: quoted.id), by: "alice")
            let gone = try #require(try await current(quoting))
            #expect(gone.text.isEmpty && gone.deletedAt != nil)
            #expect(try await current(reply)?.text == "")
            for event in try await harness.stored(id.stream) {
                #expect(!(try event.data.jsonString()).contains("plan"), "event \(event.type) still carries the deleted text")
            }
            #expect(try await storage.countRecords(RecordQuery(kind: QuoteRecord.recordKind, scope: id.rawValue)) == 0)
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "x", parentMessageId: quoted.id), by: "bob") } == .messageNotFound)

            // A deleted user's erased messages lose their text in the quotes of them too.
            let later = try await chat.send(MessageSendArgs(channelId: id, text: "bob's confession"), by: "bob")
            let echo = try await chat.send(MessageSendArgs(channelId: id, text: "wow", parentMessageId: later.id), by: "alice")
            _ = try await harness.events.transact { try await ChatService.forget(UserDeletion(userId: "bob", eraseMessages: true), in: $0) }
            #expect(try await current(echo)?.text == "")
            for event in try await harness.stored(id.stream) {
                #expect(!(try event.data.jsonString()).contains("confession"), "event \(event.type) still carries the erased text")
            }
        }
    }
}
