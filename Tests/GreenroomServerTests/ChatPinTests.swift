import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Pinned messages on each storage backend, through the chat service as a caller uses it.
@Suite("Chat pinned messages on every backend", .wholeRun)
struct ChatPinTests {
    @Test("operators pin and unpin; members list the pins, the latest first; the channel hears message.updated; a deleted message is unpinned; the pins are bounded", arguments: Backend.allCases)
    func pins(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("pins")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            _ = try await chat.join(id, userId: "bob")
            var sent: [ChatMessage] = []
            for index in 1...3 { sent.append(try await chat.send(MessageSendArgs(channelId: id, text: "m\(index)"), by: "bob")) }

            #expect(await refusal { _ = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[0].id), true, by: "bob") } == .operatorRequired)
            let pinned = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[0].id), true, by: "alice")
            #expect(pinned.pinnedBy == "alice" && pinned.pinnedAt != nil)
            try await Task.sleep(for: .milliseconds(5))
            _ = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[2].id), true, by: "alice")
            // Pinning a pinned message changes nothing and announces nothing.
            _ = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[2].id), true, by: "alice")
            #expect(try await chat.pinnedMessages(PinnedMessagesArgs(channelId: id), by: "bob").items.map(\.id) == [sent[2].id, sent[0].id])
            #expect(await refusal { _ = try await chat.pinnedMessages(PinnedMessagesArgs(channelId: id), by: "mallory") } == .notChannelMember)
            let updates = try await harness.stored(id.stream).filter { $0.type == ChatEventType.messageUpdated }.compactMap { ChatEvent($0)?.message }
            #expect(updates.map(\.id) == [sent[0].id, sent[2].id] && updates.allSatisfy { $0.pinnedAt != nil })

            let unpinned = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[0].id), false, by: "alice")
            #expect(unpinned.pinnedAt == nil && unpinned.pinnedBy == nil)
            let deleted = try await chat.deleteMessage(MessageRef(channelId: id, messageId: sent[2].id), by: "bob")
            #expect(deleted.pinnedAt == nil)
            #expect(try await chat.pinnedMessages(PinnedMessagesArgs(channelId: id), by: "bob").items.isEmpty)
            #expect(await refusal { _ = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[2].id), true, by: "alice") } == .messageNotFound)

            // At most so many pins at once.
            for index in 0..<Limits.maxPinnedMessages {
                let message = try await chat.send(MessageSendArgs(channelId: id, text: "p\(index)"), by: "alice")
                _ = try await chat.setPinned(MessageRef(channelId: id, messageId: message.id), true, by: "alice")
            }
            #expect(await refusal { _ = try await chat.setPinned(MessageRef(channelId: id, messageId: sent[1].id), true, by: "alice") } == .invalidParameterValue)
            #expect(try await storage.load(MessageRecord.self, scope: id.rawValue, id: sent[1].id)?.message.pinnedAt == nil, "the refused pin left nothing")
        }
    }
}
