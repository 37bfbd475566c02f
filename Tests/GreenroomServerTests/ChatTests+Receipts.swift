import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

extension ChatTests {
    @Test("a notification extension marks a pushed message delivered over REST with the client token; the sender's controller sees who received it before they read it")
    func deliveryFromANotification() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob"])
            let alice = users["alice"]!
            _ = try await alice.createChannel(id: "mail", name: "Mail", members: ["bob"])
            let aliceRoom = alice.channelController(for: "mail")
            try await aliceRoom.synchronize()
            let message = try await aliceRoom.sendMessage(text: "parcel on its way")
            #expect(aliceRoom.receivers(of: message).isEmpty)

            // What Greenroom's push carries beside `aps`.
            let payload: [AnyHashable: Any] = ["aps": ["alert": ["title": "Mail"]], "type": "message.new", "channelId": "mail", "messageId": message.id]
            let token = try await server.token("bob")
            let delivered = try await GreenroomClient.markAsDelivered(remoteNotificationPayload: payload, serverURL: server.url, token: token)
            #expect(delivered.lastDeliveredSequence == message.sequence && delivered.lastReadSequence < message.sequence)
            try await eventually("alice sees the message reached bob") { aliceRoom.receivers(of: message) == ["bob"] }
            #expect(aliceRoom.readers(of: message).isEmpty, "delivered is not read")

            // Refusals: no ids, a stranger, the API key (the route is a user's own).
            await #expect(throws: GreenroomError.self) {
                try await GreenroomClient.markAsDelivered(remoteNotificationPayload: ["aps": [:]], serverURL: server.url, token: token)
            }
            let stranger = try await server.token("mallory")
            let refused = await refusal {
                _ = try await GreenroomClient.markAsDelivered(channelId: "mail", messageId: message.id, serverURL: server.url, token: stranger)
            }
            #expect(refused == .notChannelMember)
            let (status, _) = try await server.rest("POST", "/v1/channels/mail/delivered", body: ["messageId": .string(message.id)])
            #expect(status == 401 || status == 403, "the API key is not a user: \(status)")
        }
    }

    @Test("in a channel past the receipt batch size, reads reach the sender batched by the running server, and its controller counts them as one by one")
    func batchedReceiptsOnOneNode() async throws {
        try await withServer({ $0.receiptBatchMembers = 2 }) { server in
            let users = try await server.clients(["alice", "bob", "carol"])
            let alice = users["alice"]!, bob = users["bob"]!, carol = users["carol"]!
            _ = try await alice.createChannel(id: "plaza", name: "Plaza", members: ["bob", "carol"])
            let rooms = [alice, bob, carol].map { $0.channelController(for: "plaza") }
            for room in rooms { try await room.synchronize() }
            let message = try await rooms[0].sendMessage(text: "all here?")
            try await eventually("both have it unread") { rooms[1].unreadCount == 1 && rooms[2].unreadCount == 1 }
            try await rooms[1].markRead()
            _ = try await rooms[2].markDelivered(messageId: message.id)
            try await eventually("alice sees bob's read and carol's delivery from the batch") {
                rooms[0].readers(of: message) == ["bob"] && Set(rooms[0].receivers(of: message)) == ["bob", "carol"]
            }
            let stored = try await server.rest("GET", "/v1/streams/channel:plaza/events?limit=1000").1.arrayValue ?? []
            let receipts = stored.filter { [ChatEventType.messageRead, ChatEventType.messageDelivered].contains($0["type"]?.stringValue ?? "") }
            #expect(receipts.count == 2 && receipts.allSatisfy { $0["data"]?["reads"]?.arrayValue?.count == 1 && $0["data"]?["read"] == nil },
                    "each receipt came in a batch, none on its own: \(receipts)")
        }
    }
}
