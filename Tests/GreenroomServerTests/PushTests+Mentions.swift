import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension PushTests {
    @Test("a member who set a channel to mentions only is pushed the messages that mention it and no other; each push's badge is its user's unread messages")
    func mentionsOnlyAndBadge() async throws {
        let bob = PushDevice.apn(token: Self.token(0xB2)), carol = PushDevice.apn(token: Self.token(0xC2))
        let (apns, configure) = try await Self.apns()
        defer { Task { await apns.stop() } }

        try await withServer(configure) { server in
            let storage = server.server.core.storage
            let alice = try await server.client("alice")
            let bobClient = try await server.client("bob")
            let carolClient = try await server.client("carol")
            try await bobClient.currentUserController().addDevice(bob)
            try await carolClient.currentUserController().addDevice(carol)
            let channel = try await alice.createChannel(id: "mentions", name: "Mentions", members: ["bob", "carol"])
            let room = alice.channelController(for: channel.id)
            try await bobClient.channelController(for: channel.id).setMyPushTriggerOption(.mentionOnly)
            #expect(try await bobClient.channelController(for: channel.id).myPushTriggerOption() == .mentionOnly)
            for client in [bobClient, carolClient] { await client.disconnect() }
            try await eventually("bob and carol are offline") {
                let bobOnline = try await storage.presenceCount(stream: PushSender.onlineStream("bob"), clientIdPrefix: "")
                let carolOnline = try await storage.presenceCount(stream: PushSender.onlineStream("carol"), clientIdPrefix: "")
                return bobOnline + carolOnline == 0
            }

            _ = try await room.sendMessage(text: "for everyone")
            try await eventually("carol is pushed the first message") { apns.pushes.value.contains { $0.token == carol.id } }
            let mention = try await room.sendMessage(text: "@bob look", mentionedUserIds: ["bob"])
            #expect(mention.mentionedUserIds == ["bob"])
            try await eventually("bob is pushed the message that mentions him, carol both") {
                apns.pushes.value.contains { $0.token == bob.id } && apns.pushes.value.count { $0.token == carol.id } == 2
            }
            let pushes = apns.pushes.value
            let toBob = pushes.filter { $0.token == bob.id }
            #expect(toBob.count == 1 && toBob.first?.payload["messageId"]?.stringValue == mention.id, "the message without a mention did not push bob")
            #expect(toBob.first?.payload["aps"]?["badge"]?.numberValue == 2, "bob has two unread messages")
            #expect(pushes.filter { $0.token == carol.id }.map { $0.payload["aps"]?["badge"]?.numberValue } == [1, 2])
            #expect(pushes.allSatisfy { $0.problems.isEmpty }, "\(pushes.flatMap(\.problems))")
        }
    }
}
