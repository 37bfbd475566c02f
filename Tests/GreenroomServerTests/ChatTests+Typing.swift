import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

extension ChatTests {
    @Test("typing on one node: a member sees it start and stop; a raw subscription gets the signals and no position from them; nothing is stored")
    func typingOnOneNode() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob"])
            let alice = users["alice"]!, bob = users["bob"]!
            _ = try await alice.createChannel(id: "desk", name: "Desk", members: ["bob"])
            let aliceRoom = alice.channelController(for: "desk")
            let bobRoom = bob.channelController(for: "desk")
            try await aliceRoom.synchronize()
            try await bobRoom.synchronize()
            let aliceLaptop = try await server.client("alice")
            let raw = try await aliceLaptop.subscribe(to: "channel:desk")
            let signals = raw.signals
            let head = try await server.rest("GET", "/v1/streams/channel:desk/events?limit=1000").1.arrayValue?.count ?? -1

            try await bobRoom.startTyping()
            try await eventually("alice sees bob typing") { aliceRoom.currentlyTypingUsers == ["bob"] }
            var iterator = signals.makeAsyncIterator()
            let signal = try #require(await iterator.next())
            #expect(signal.stream == "channel:desk" && signal.type == ChatEventType.typingStart)
            #expect(try signal.data.decode(as: TypingIndicator.self) == TypingIndicator(channelId: "desk", userId: "bob"))
            try await bobRoom.stopTyping()
            try await eventually("bob's stop reaches alice") { aliceRoom.currentlyTypingUsers.isEmpty }
            #expect(await iterator.next()?.type == ChatEventType.typingStop)
            #expect(try await server.rest("GET", "/v1/streams/channel:desk/events?limit=1000").1.arrayValue?.count == head)
            #expect(raw.position == nil || raw.position?.offset == UInt64(head), "signals move no stream position")
        }
    }
}
