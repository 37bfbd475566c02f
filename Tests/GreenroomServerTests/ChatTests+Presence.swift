import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

extension ChatTests {
    @Test("online state: a member's first connection signals online to its channels, its last offline with when it was last active; user.presence reads it; nothing is stored in the channel's log")
    func onlineStateOnOneNode() async throws {
        try await withServer { server in
            let bobFirst = try await server.client("bob")
            await bobFirst.disconnect()
            let alice = try await server.client("alice")
            _ = try await alice.createChannel(id: "lounge", name: "Lounge", members: ["bob"])
            let aliceRoom = alice.channelController(for: "lounge")
            try await aliceRoom.synchronize()
            try await eventually("bob reads as offline, seen before") {
                let bob = try await alice.userPresence(of: ["bob"]).first
                return bob?.online == false && bob?.lastActiveAt != nil
            }
            let head = try await server.rest("GET", "/v1/streams/channel:lounge/events?limit=1000").1.arrayValue?.count ?? -1

            let bob = try await server.client("bob")
            try await eventually("alice sees bob come online") { aliceRoom.presence(of: "bob")?.online == true }
            #expect(aliceRoom.onlineUserIds == ["bob"])
            let bobPhone = try await server.client("bob")
            await bob.disconnect()
            try await eventually("bob's phone keeps him online") { try await alice.userPresence(of: ["bob"]).first?.online == true }
            #expect(aliceRoom.presence(of: "bob")?.online == true)
            let before = Date()
            await bobPhone.disconnect()
            try await eventually("alice sees bob go offline") { aliceRoom.presence(of: "bob")?.online == false }
            let seen = try #require(aliceRoom.presence(of: "bob")?.lastActiveAt)
            #expect(seen >= before.addingTimeInterval(-1), "last active when his last connection closed")
            #expect(try await server.rest("GET", "/v1/streams/channel:lounge/events?limit=1000").1.arrayValue?.count == head)

            let loaded = try await aliceRoom.loadMemberPresence()
            #expect(Set(loaded.map(\.userId)) == ["alice", "bob"] && loaded.first { $0.userId == "alice" }?.online == true)
            #expect(try await alice.userPresence(of: ["nobody"]).first == UserPresence(userId: "nobody", online: false))
            await #expect(throws: GreenroomError.self) { _ = try await alice.userPresence(of: []) }
        }
    }
}
