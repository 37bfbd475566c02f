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

    @Test("online state is signalled only in channels of at most 100 members; a bigger one's members ask user.presence")
    func onlineStateSkipsBigChannels() async throws {
        try await withServer({ $0.channelMemberLimit = 200 }) { server in
            let crowd = (1...99).map { "fan\($0)" }
            try await server.createUsers(["bob"] + crowd)
            let alice = try await server.client("alice")
            _ = try await alice.createChannel(id: "small", name: "Small", members: ["bob"])
            _ = try await alice.createChannel(id: "big", name: "Big", members: ["bob"])
            _ = try await alice.channelController(for: "big").inviteUserIds(crowd)
            #expect(try await alice.channel("big").memberCount == Limits.maxPresenceSignalMembers + 1)
            let small = alice.channelController(for: "small"), big = alice.channelController(for: "big")
            try await small.synchronize()
            try await big.synchronize()

            let bob = try await server.client("bob")
            try await eventually("the small channel hears bob come online") { small.presence(of: "bob")?.online == true }
            // Both channels' signals, had there been two, were handed over in one pass before
            // this typing signal, and a stream's signals keep their order on a node.
            try await bob.channelController(for: "big").startTyping()
            try await eventually("bob's typing reaches the big channel") { big.currentlyTypingUsers == ["bob"] }
            #expect(big.presence(of: "bob") == nil, "no online signal in a channel of more than 100 members")
            try await big.loadMemberPresence(limit: 100)
            #expect(big.presence(of: "bob")?.online == true, "user.presence answers instead")
        }
    }
}
