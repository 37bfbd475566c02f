import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Message search on each storage backend (FTS5, PostgreSQL's full-text search, a scan in
/// memory): the index is written with the message, so a search finds messages as they are.
@Suite("Message search on every backend", .wholeRun)
struct ChatSearchTests {
    @Test("search finds whole words in the caller's joined channels only, an edited message by its new text only, never a deleted one; by sender, time, relevance and page", arguments: Backend.allCases)
    func search(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let town = ChannelId("town")
            let secret = ChannelId("secret")
            _ = try await chat.create(ChannelCreateArgs(id: town, isPublic: true), by: "alice")
            _ = try await chat.create(ChannelCreateArgs(id: secret, isPublic: true), by: "alice")
            for user in ["bob", "carol"] { _ = try await chat.join(town, userId: user) }
            _ = try await chat.join(secret, userId: "bob")
            // Newest first is by the time sent, in milliseconds, and messages of the same
            // millisecond are in the order of their ids (random within a millisecond): each waits for the next one.
            func send(_ user: String, _ text: String, in channel: ChannelId = town, thread: String? = nil) async throws -> ChatMessage {
                let message = try await chat.send(MessageSendArgs(channelId: channel, text: text, threadParentId: thread), by: user)
                try await Task.sleep(for: .milliseconds(2))
                return message
            }
            func find(_ keyword: String, as user: String = "carol", _ configure: (inout MessageSearchQuery) -> Void = { _ in }) async throws -> [String] {
                var query = MessageSearchQuery(keyword: keyword)
                configure(&query)
                return try await chat.searchMessages(query, by: user).items.map(\.text)
            }

            let date = try await send("alice", "The launch date is Friday")
            let party = try await send("bob", "Launch party at Café Noir!")
            _ = try await send("alice", "launch secrets", in: secret)
            _ = try await send("carol", "Is the launch on time?", thread: date.id)
            let later = Date()
            try await Task.sleep(for: .milliseconds(20))
            _ = try await send("bob", "launch, launch, LAUNCH: the launch of launches")

            #expect(try await find("launch") == ["launch, launch, LAUNCH: the launch of launches", "Is the launch on time?",
                                                 "Launch party at Café Noir!", "The launch date is Friday"],
                    "newest first, a thread reply included, nothing of a channel carol is not in")
            #expect(try await find("launch", as: "bob").count == 5, "bob is in both channels")
            #expect(try await find("cafe") == ["Launch party at Café Noir!"], "accents and case do not matter")
            #expect(try await find("LAUNCH date") == ["The launch date is Friday"], "every word must be there")
            #expect(try await find("laun").isEmpty, "whole words only")
            #expect(try await find("launch") { $0.senderId = "bob" }.count == 2)
            #expect(try await find("launch") { $0.from = later } == ["launch, launch, LAUNCH: the launch of launches"])
            #expect(try await find("launch") { $0.to = later }.count == 3)
            #expect(try await find("launch") { $0.order = .relevance }.first == "launch, launch, LAUNCH: the launch of launches")
            #expect(await refusal { _ = try await find("launch") { $0.channelId = secret } } == .notChannelMember)
            #expect(await refusal { _ = try await find("!!! ...") } == .invalidParameterValue)
            #expect(await refusal { _ = try await find("launch") { $0.from = later; $0.to = later } } == .invalidParameterValue)

            // Paging, both orders.
            for order in MessageSearchOrder.allCases {
                var seen: [String] = []
                var query = MessageSearchQuery(keyword: "launch", order: order, limit: 1)
                repeat {
                    let page = try await chat.searchMessages(query, by: "carol")
                    seen += page.items.map(\.id)
                    query.cursor = page.next
                } while query.cursor != nil
                #expect(seen.count == 4 && Set(seen).count == 4, "\(order): \(seen)")
            }

            // An edit: found by its new text only. A deletion: never found again.
            _ = try await chat.updateMessage(MessageUpdateArgs(channelId: town, messageId: date.id, text: "The release is on Monday"), by: "alice")
            #expect(try await find("friday").isEmpty)
            #expect(try await find("launch date").isEmpty)
            #expect(try await find("monday") == ["The release is on Monday"])
            _ = try await chat.deleteMessage(MessageRef(channelId: town, messageId: party.id), by: "bob")
            #expect(try await find("noir").isEmpty)
            #expect(try await find("launch").count == 2)

            // A blocked sender's messages are left out; leaving the channel leaves its messages out.
            try await harness.events.transact { transaction in
                _ = try await transaction.insertUser(User(id: "bob", nickname: "Bob", createdAt: Date(), updatedAt: Date()))
            }
            _ = try await chat.block("bob", by: "carol")
            #expect(try await find("launch") == ["Is the launch on time?"])
            try await chat.unblock("bob", by: "carol")
            try await chat.leave(town, userId: "carol")
            #expect(try await find("launch").isEmpty)

            // A user's erased messages and a deleted channel's leave the index.
            _ = try await harness.events.transact { try await ChatService.forget(UserDeletion(userId: "bob", eraseMessages: true), in: $0) }
            #expect(try await find("launches", as: "alice").isEmpty)
            try await chat.delete(town, by: "alice")
            #expect(try await storage.countRecords(RecordQuery(kind: TextSearch.kind, scope: town.rawValue)) == 0)
            #expect(try await find("launch", as: "alice") == ["launch secrets"])
        }
    }
}
