import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Read and delivery receipts on each storage backend: deliveries move forward only, and a
/// big channel's receipts are announced in batches, one event per kind a flush.
@Suite("Chat receipts on every backend", .wholeRun)
struct ChatReceiptTests {
    @Test("delivery: forward only, not past a read, listed with the reads, announced at once in a small channel, gone with the member's departure", arguments: Backend.allCases)
    func delivery(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("post")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            _ = try await chat.join(id, userId: "bob")
            var sent: [ChatMessage] = []
            for index in 1...3 { sent.append(try await chat.send(MessageSendArgs(channelId: id, text: "m\(index)"), by: "alice")) }

            let delivered = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: sent[1].id), by: "bob")
            #expect(delivered.lastDeliveredSequence == sent[1].sequence && delivered.hasReceived(sent[1].sequence) && !delivered.hasReceived(sent[2].sequence))
            let announced = try await harness.stored(id.stream).last.flatMap(ChatEvent.init)
            #expect(announced?.type == ChatEventType.messageDelivered && announced?.read?.userId == "bob"
                    && announced?.read?.lastDeliveredSequence == sent[1].sequence)
            let count = try await harness.stored(id.stream).count
            // Back, or over what was read, changes nothing and announces nothing.
            let back = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: sent[0].id), by: "bob")
            #expect(back.lastDeliveredSequence == sent[1].sequence)
            _ = try await chat.markRead(MarkReadArgs(channelId: id, messageId: sent[2].id), by: "bob")
            let afterRead = try await harness.stored(id.stream).count
            #expect(afterRead == count + 1, "only the read is announced")
            _ = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: sent[2].id), by: "bob")
            #expect(try await harness.stored(id.stream).count == afterRead)
            let reads = try await chat.reads(ChannelReadsArgs(channelId: id), by: "alice").items
            let bob = try #require(reads.first { $0.userId == "bob" })
            #expect(bob.lastReadSequence == sent[2].sequence && bob.lastDeliveredSequence == nil, "a delivery behind the read is not listed")

            let fourth = try await chat.send(MessageSendArgs(channelId: id, text: "m4"), by: "alice")
            _ = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: fourth.id), by: "bob")
            #expect(try await chat.reads(ChannelReadsArgs(channelId: id), by: "alice").items.first { $0.userId == "bob" }?.lastDeliveredSequence == fourth.sequence)
            #expect(await refusal { _ = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: fourth.id), by: "mallory") } == .notChannelMember)
            #expect(await refusal { _ = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: "mnone"), by: "bob") } == .messageNotFound)
            try await chat.leave(id, userId: "bob")
            #expect(try await storage.load(DeliveryRecord.self, scope: id.rawValue, id: "bob") == nil)
        }
    }

    @Test("a big channel's receipts wait for the batch: one message.read and one message.delivered a flush, with each member's latest position; a small channel's do not wait", arguments: Backend.allCases)
    func batches(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            var chat = ChatCapability(harness.core).service
            chat.receiptBatchMembers = 3
            let id = ChannelId("hall")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol", "dave"] { _ = try await chat.join(id, userId: user) }
            var sent: [ChatMessage] = []
            for index in 1...3 { sent.append(try await chat.send(MessageSendArgs(channelId: id, text: "m\(index)"), by: "alice")) }
            func receipts() async throws -> [ChatEvent] {
                try await harness.stored(id.stream).compactMap(ChatEvent.init)
                    .filter { $0.type == ChatEventType.messageRead || $0.type == ChatEventType.messageDelivered }
            }

            _ = try await chat.markRead(MarkReadArgs(channelId: id, messageId: sent[0].id), by: "bob")
            _ = try await chat.markRead(MarkReadArgs(channelId: id, messageId: sent[2].id), by: "bob")
            _ = try await chat.markRead(MarkReadArgs(channelId: id, messageId: sent[1].id), by: "carol")
            _ = try await chat.markDelivered(MarkDeliveredArgs(channelId: id, messageId: sent[2].id), by: "dave")
            #expect(try await receipts().isEmpty, "nothing is announced before the batch")
            let mine = try await harness.stored(StreamName.user("bob")).filter { $0.type == ChatEventType.readChanged }
            #expect(mine.count == 2, "the reader's own devices hear each read at once")

            try await chat.flushReceipts()
            let batch = try await receipts()
            #expect(batch.map(\.type) == [ChatEventType.messageRead, ChatEventType.messageDelivered])
            #expect(batch.first?.reads?.map(\.userId) == ["bob", "carol"])
            #expect(batch.first?.reads?.map(\.lastReadSequence) == [sent[2].sequence, sent[1].sequence])
            #expect(batch.first?.reads?.allSatisfy { $0.unreadMessages == nil } == true, "a member's own counts stay its own")
            #expect(batch.last?.reads?.map(\.userId) == ["dave"] && batch.last?.reads?.first?.lastDeliveredSequence == sent[2].sequence)
            try await chat.flushReceipts()
            #expect(try await receipts().count == 2, "an empty batch announces nothing")

            // Below the batch size receipts are announced at once.
            try await chat.leave(id, userId: "dave")
            _ = try await chat.markRead(MarkReadArgs(channelId: id), by: "carol")
            #expect(try await receipts().last?.read?.userId == "carol")
            // A channel deleted before its batch announces nothing.
            for user in ["erin", "frank"] { _ = try await chat.join(id, userId: user) }
            _ = try await chat.markRead(MarkReadArgs(channelId: id), by: "erin")
            try await chat.delete(id, by: "alice")
            try await chat.flushReceipts()
        }
    }
}
