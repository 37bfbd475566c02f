import Foundation
import Greenroom
import GreenroomServer
import Testing

extension MultiNodeTests {
    @Test("a chat channel on two nodes: members on each send at once; everyone sees every message in one order")
    func chatAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            let carol = try await two.client("carol")
            try await carol.setChannelInvitationPreference(autoAccept: false)
            _ = try await alice.createChannel(id: "bridge", name: "Bridge", members: ["bob"])
            let aliceRoom = alice.channelController(for: "bridge")
            let bobRoom = bob.channelController(for: "bridge")
            try await aliceRoom.synchronize()
            try await bobRoom.synchronize()
            let aliceEvents = aliceRoom.events
            let bobEvents = bobRoom.events

            // A rule checked on the other node: carol (node 2) is invited by bob (node 2) and
            // accepts; a non-member on node 1 is refused.
            let carolInbox = try await carol.subscribe(to: StreamName.user("carol"))
            try await bobRoom.inviteUserIds(["carol"])
            #expect(try await collect(carolInbox, count: 1).events.first?.type == ChatEventType.channelInvited)
            try await carol.channelController(for: "bridge").acceptInvitation()
            let dave = try await one.client("dave")
            #expect(await refusal { try await dave.channelController(for: "bridge").sendMessage(text: "hi") } == .notChannelMember)

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for index in 1...50 { try await aliceRoom.sendMessage(text: "a\(index)") } }
                group.addTask { for index in 1...50 { try await bobRoom.sendMessage(text: "b\(index)") } }
                try await group.waitForAll()
            }
            let isMessage: @Sendable ([ChatEvent]) -> Bool = { $0.filter { $0.type == ChatEventType.messageNew }.count == 100 }
            let onOne = try await chatEvents(aliceEvents, until: isMessage).filter { $0.type == ChatEventType.messageNew }.compactMap(\.message)
            let onTwo = try await chatEvents(bobEvents, until: isMessage).filter { $0.type == ChatEventType.messageNew }.compactMap(\.message)
            #expect(onOne.map(\.id) == onTwo.map(\.id))
            #expect(onOne.map(\.sequence) == Array(1...100))
            // Each sender's own order is kept.
            #expect(onOne.filter { $0.senderId == "alice" }.map(\.text) == (1...50).map { "a\($0)" })
            #expect(onOne.filter { $0.senderId == "bob" }.map(\.text) == (1...50).map { "b\($0)" })
            let history = try await carol.channelController(for: "bridge").loadPreviousMessages(limit: 100).items
            #expect(history.map(\.id) == onOne.map(\.id))
            #expect(try await alice.channel("bridge").memberCount == 3)
            for client in [alice, bob, carol, dave] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
