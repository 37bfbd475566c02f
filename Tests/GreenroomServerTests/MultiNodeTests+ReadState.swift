import Foundation
import Greenroom
import GreenroomServer
import Testing

extension MultiNodeTests {
    @Test("read state on two nodes through the SDK: unread counts follow messages and deletes; a read on node 2 reaches the sender's receipts on node 1; a second device's read reaches the first")
    func readStateAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            let bobPhone = try await one.client("bob")
            _ = try await alice.createChannel(id: "receipts", name: "Receipts", members: ["bob"])
            let aliceRoom = alice.channelController(for: "receipts")
            let bobRoom = bob.channelController(for: "receipts")
            let phoneRoom = bobPhone.channelController(for: "receipts")
            for room in [aliceRoom, bobRoom, phoneRoom] { try await room.synchronize() }
            #expect(bobRoom.unreadCount == 0)

            var sent: [ChatMessage] = []
            for index in 1...5 { sent.append(try await aliceRoom.sendMessage(text: "m\(index)")) }
            try await eventually("bob's count follows alice's messages on the other node") { bobRoom.unreadCount == 5 && phoneRoom.unreadCount == 5 }
            _ = try await aliceRoom.deleteMessage(messageId: sent[4].id)
            try await eventually("a deleted message is unread no more") { bobRoom.unreadCount == 4 }
            #expect(try await bob.currentUserController().unreadCount().totalUnreadMessages == 4)
            #expect(try await bobPhone.currentUserController().unreadCount().unreadChannels == 1)
            #expect(try await alice.currentUserController().unreadCount().totalUnreadMessages == 0)

            // Bob reads up to the second message on node 2: alice's receipts on node 1 show it.
            let read = try await bobRoom.markRead(upTo: sent[1].id)
            #expect(read.unreadMessages == 2 && bobRoom.unreadCount == 2)
            try await eventually("alice sees bob's read of the second message") { aliceRoom.readers(of: sent[1]) == ["bob"] }
            #expect(aliceRoom.readers(of: sent[2]).isEmpty)
            // Bob's other device, on node 1, hears the same read and counts from it.
            try await eventually("bob's phone follows the read") { phoneRoom.unreadCount == 2 }

            try await phoneRoom.markRead()
            try await eventually("the read on the phone reaches the first device") { bobRoom.unreadCount == 0 }
            try await eventually("alice sees bob read everything") { aliceRoom.readers(of: sent[3]) == ["bob"] }
            try await bobRoom.markUnread(from: sent[2].id)
            #expect(bobRoom.unreadCount == 2)
            #expect(try await bob.currentUserController().unreadCount().totalUnreadMessages == 2)

            // Bob's own message reads the channel for him.
            _ = try await bobRoom.sendMessage(text: "seen it all")
            #expect(bobRoom.unreadCount == 0)
            try await eventually("alice has one unread, bob's") { aliceRoom.unreadCount == 1 }
            for client in [alice, bob, bobPhone] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
