import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

@Suite("Chat: the server enforces every rule", .wholeRun)
struct ChatPermissionTests {
    @Test("the permission matrix: each refusal has its code and changes nothing")
    func permissionMatrix() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob", "mallory", "olivia"])
            let alice = users["alice"]!, bob = users["bob"]!, mallory = users["mallory"]!, olivia = users["olivia"]!
            let channel = try await alice.createChannel(id: "secret", name: "Secret", members: ["bob"], isPublic: false)
            #expect(channel.membership?.isOperator == true)
            #expect(channel.memberCount == 2)
            let aliceChannel = alice.channelController(for: "secret")
            let bobChannel = bob.channelController(for: "secret")
            let malloryChannel = mallory.channelController(for: "secret")
            let first = try await aliceChannel.sendMessage(text: "hello")

            // A non-member reads (history, the stream, the channel itself) or sends.
            #expect(await refusal { _ = try await malloryChannel.loadPreviousMessages() } == .notChannelMember)
            #expect(await refusal { _ = try await mallory.subscribe(to: "channel:secret") } == .notChannelMember)
            #expect(await refusal { _ = try await mallory.channel("secret") } == .notChannelMember)
            #expect(await refusal { try await malloryChannel.sendMessage(text: "let me in") } == .notChannelMember)
            #expect(await refusal { _ = try await malloryChannel.loadMembers() } == .notChannelMember)
            // A non-member invites to a private channel; joins it uninvited.
            #expect(await refusal { try await malloryChannel.inviteUserIds(["mallory", "olivia"]) } == .notChannelMember)
            #expect(await refusal { try await malloryChannel.join() } == .invitationRequired)
            // A member (not an operator) adds or removes an operator, updates or deletes the channel.
            #expect(await refusal { try await bobChannel.addOperators(userIds: ["bob"]) } == .operatorRequired)
            #expect(await refusal { try await bobChannel.removeOperators(userIds: ["alice"]) } == .operatorRequired)
            #expect(await refusal { try await bobChannel.partialChannelUpdate(name: "Mine") } == .operatorRequired)
            #expect(await refusal { try await bobChannel.deleteChannel() } == .operatorRequired)
            // A member edits or deletes another's message; reacts to one that does not exist.
            #expect(await refusal { try await bobChannel.deleteMessage(messageId: first.id) } == .notMessageSender)
            #expect(await refusal { try await bobChannel.editMessage(messageId: first.id, text: "mine now") } == .notMessageSender)
            #expect(await refusal { try await bobChannel.addReaction("like", messageId: "nope") } == .messageNotFound)
            // An operator cannot make a non-member an operator; nobody accepts an invitation they do not have.
            #expect(await refusal { try await aliceChannel.addOperators(userIds: ["olivia"]) } == .notChannelMember)
            #expect(await refusal { try await olivia.channelController(for: "secret").acceptInvitation() } == .invitationNotFound)
            // Unknown channel, unknown invitee.
            #expect(await refusal { _ = try await alice.channel("nowhere") } == .notFound)
            #expect(await refusal { try await aliceChannel.inviteUserIds(["ghost"]) } == .notFound)

            // Nothing changed.
            let history = try await alice.channelController(for: "secret").loadPreviousMessages(limit: 100)
            #expect(history.items.map(\.text) == ["hello"])
            let members = try await aliceChannel.loadMembers()
            #expect(members.items.map(\.userId) == ["alice", "bob"])
            #expect(try await aliceChannel.loadMembers(filter: .operators).items.map(\.userId) == ["alice"])
            #expect(try await alice.channel("secret").name == "Secret")

            // What operators may do: delete any message, add and remove operators.
            try await aliceChannel.inviteUserIds(["olivia"])
            let bobs = try await bobChannel.sendMessage(text: "from bob")
            let deleted = try await aliceChannel.deleteMessage(messageId: bobs.id)
            #expect(deleted.isDeleted && deleted.text.isEmpty)
            try await aliceChannel.addOperators(userIds: ["bob"])
            #expect(try await aliceChannel.loadMembers(filter: .operators).items.map(\.userId) == ["alice", "bob"])
            #expect(try await aliceChannel.loadMembers(filter: .nonOperators).items.map(\.userId) == ["olivia"])
            try await bobChannel.removeOperators(userIds: ["alice"])
            #expect(await refusal { try await aliceChannel.deleteChannel() } == .operatorRequired)
            try await bobChannel.deleteChannel()
            #expect(await refusal { _ = try await alice.channel("secret") } == .notFound)
            #expect(try await alice.channels().items.isEmpty)
        }
    }

    @Test("the member limit: the 101st member is refused, by invitation and by joining")
    func memberLimit() async throws {
        try await HeavyTests.run {
            try await withServer { server in
                let others = (1...99).map { "u\($0)" }
                try await server.createUsers(others + ["late", "later"])
                let owner = try await server.client("owner")
                let channel = try await owner.createChannel(id: "full", members: others, isPublic: true)
                #expect(channel.memberCount == 100)
                let controller = owner.channelController(for: "full")
                #expect(await refusal { try await controller.inviteUserIds(["late"]) } == .channelMemberLimitReached)
                let late = try await server.client("late")
                #expect(await refusal { try await late.channelController(for: "full").join() } == .channelMemberLimitReached)
                #expect(try await owner.channel("full").memberCount == 100)
                // One leaves, one more fits; the next does not.
                let leaver = try await server.client("u1")
                try await leaver.channelController(for: "full").leave()
                try await late.channelController(for: "full").join()
                let later = try await server.client("later")
                #expect(await refusal { try await later.channelController(for: "full").join() } == .channelMemberLimitReached)
                var all: [String] = []
                var cursor: String?
                repeat {
                    let page = try await controller.loadMembers(limit: 30, cursor: cursor)
                    all += page.items.map(\.userId)
                    cursor = page.next
                } while cursor != nil
                #expect(all.count == 100 && Set(all).count == 100 && all.contains("late") && !all.contains("u1"))
                #expect(all == all.sorted())
            }
            try await withServer({ $0.channelMemberLimit = 3 }) { server in
                try await server.createUsers(["b", "c", "d"])
                let owner = try await server.client("a")
                #expect(await refusal { _ = try await owner.createChannel(members: ["b", "c", "d"]) } == .channelMemberLimitReached)
                let channel = try await owner.createChannel(members: ["b", "c"])
                #expect(await refusal { try await owner.channelController(for: channel.id).inviteUserIds(["d"]) } == .channelMemberLimitReached)
            }
        }
    }

    @Test("extra data: the 5 KB limit and reserved keys on users, channels and messages; partial updates set and unset")
    func extraDataRules() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob"])
            let alice = users["alice"]!
            let big: [String: RawJSON] = ["blob": .string(String(repeating: "x", count: 5 * 1024))]
            #expect(await refusal { try await alice.currentUserController().updateUserData(userExtraData: big) } == .payloadTooLarge)
            #expect(await refusal { try await alice.currentUserController().updateUserData(userExtraData: ["name": "x"]) } == .reservedKey)
            #expect(await refusal { _ = try await alice.createChannel(extraData: big) } == .payloadTooLarge)
            #expect(await refusal { _ = try await alice.createChannel(extraData: ["created_at": 1]) } == .reservedKey)

            _ = try await alice.createChannel(id: "room", name: "Room", members: ["bob"], extraData: ["topic": "cats", "color": "red"])
            let room = alice.channelController(for: "room")
            #expect(await refusal { try await room.sendMessage(text: "hi", extraData: big) } == .payloadTooLarge)
            #expect(await refusal { try await room.sendMessage(text: "hi", extraData: ["text": "x"]) } == .reservedKey)
            #expect(await refusal { try await room.sendMessage(text: String(repeating: "a", count: 10_001)) } == .payloadTooLarge)
            #expect(await refusal { try await room.sendMessage(text: "  ") } == .invalidParameterValue)
            #expect(await refusal { try await room.partialChannelUpdate(extraData: big) } == .payloadTooLarge)
            #expect(await refusal { try await room.partialChannelUpdate(extraData: ["id": "x"]) } == .reservedKey)
            let fits = try await room.sendMessage(text: String(repeating: "a", count: 10_000))
            #expect(fits.text.count == 10_000)

            let updated = try await room.partialChannelUpdate(extraData: ["topic": "dogs", "size": 3], unsetProperties: ["color"])
            #expect(updated.extraData == ["topic": "dogs", "size": 3])
            #expect(updated.name == "Room")
            let replaced = try await room.updateChannel(name: "Den", extraData: ["only": true])
            #expect(replaced.extraData == ["only": true] && replaced.name == "Den")

            let message = try await room.sendMessage(text: "v1", extraData: ["a": 1, "b": 2])
            let partial = try await room.partialUpdateMessage(messageId: message.id, text: "v2", extraData: ["c": 3], unsetProperties: ["a"])
            #expect(partial.text == "v2" && partial.extraData == ["b": 2, "c": 3])
            #expect(await refusal { try await room.partialUpdateMessage(messageId: message.id, extraData: ["c": 4], unsetProperties: ["c"]) } == .invalidParameterValue)
            #expect(await refusal { try await room.partialUpdateMessage(messageId: message.id, extraData: big) } == .payloadTooLarge)
            let edited = try await room.editMessage(messageId: message.id, text: "v3")
            #expect(edited.text == "v3" && edited.extraData.isEmpty)
            let bobView = users["bob"]!.channelController(for: "room")
            let read = try await bobView.loadPreviousMessages(limit: 10).items.last
            #expect(read?.text == "v3" && read?.extraData.isEmpty == true)
        }
    }

    @Test("leaving ends the member's reading of the channel's stream on each of its connections, and a deleted channel's ends everyone's, while the others keep theirs")
    func revokedReading() async throws {
        try await withServer { server in
            try await server.createUsers(["bob", "cy"])
            let alice = try await server.client("alice", grants: ["app:marker"])
            _ = try await alice.createChannel(id: "club", name: "Club", members: ["bob", "cy"])
            // Bob on two connections, Cy on one; each follows the channel and a marker stream.
            var followers: [(name: String, client: GreenroomClient, channel: StreamSubscription, marker: StreamSubscription)] = []
            for name in ["bob", "bob", "cy"] {
                let client = try await server.client(name, grants: ["app:marker"])
                followers.append((name, client, try await client.subscribe(to: "channel:club"), try await client.subscribe(to: "app:marker")))
            }
            // Every event is delivered in commit order on a connection: once the marker,
            // published after the change, has arrived, anything of the channel's committed
            // before it has too (and the subscription's position shows it).
            func afterMarker(_ index: Int, markers: Int) async throws -> UInt64? {
                _ = try await collect(followers[index].marker, count: markers)
                return followers[index].channel.position?.offset
            }

            try await followers[0].client.channelController(for: "club").leave()
            let message = try await alice.channelController(for: "club").sendMessage(text: "after bob left")
            try await server.server.publish(stream: "app:marker", data: ["n": 1])
            let cys = try await collect(followers[2].channel, count: 2).events
            #expect(cys.map(\.type) == [ChatEventType.memberLeft, ChatEventType.messageNew])
            #expect(cys.last?.data["message"]?["id"]?.stringValue == message.id)
            let left = try #require(cys.first?.offset)
            for bob in 0..<2 {
                // The leaving itself reaches him, then nothing more of the channel.
                #expect(try await afterMarker(bob, markers: 1) == left, "bob's connection \(bob)")
                #expect(try await collect(followers[bob].channel, count: 1).events.map(\.type) == [ChatEventType.memberLeft])
            }
            #expect(try await afterMarker(2, markers: 1) == left + 1)

            try await alice.channelController(for: "club").deleteChannel()
            let deleted = try #require(try await collect(followers[2].channel, count: 1).events.first)
            #expect(deleted.type == ChatEventType.channelDeleted)
            // Whatever is appended to the stream now reaches no one who followed it.
            try await server.server.publish(stream: "channel:club", type: "late", data: ["n": 2])
            try await server.server.publish(stream: "app:marker", data: ["n": 2])
            #expect(try await afterMarker(2, markers: 1) == deleted.offset)
            for bob in 0..<2 { #expect(try await afterMarker(bob, markers: 1) == left) }
            // And the node's fan-out keeps none of the ended subscriptions.
            #expect(server.server.core.hub.subscriberCount("channel:club") == 0)
            #expect(server.server.core.hub.subscriberCount("app:marker") == 3)
        }
    }

    @Test("a connection that goes away leaves nothing in the node's fan-out: its subscriptions end with it")
    func closedConnectionsLeaveNoSubscribers() async throws {
        try await withServer { server in
            let streams = (1...20).map { "app:s\($0)" }
            let hub = server.server.core.hub
            var clients: [GreenroomClient] = []
            var last: [StreamSubscription] = []
            for index in 0..<4 {
                let client = try await server.client("u\(index)", grants: ["app:*"])
                last = []
                for stream in streams { last.append(try await client.subscribe(to: stream)) }
                clients.append(client)
            }
            #expect(streams.allSatisfy { hub.subscriberCount($0) == 4 })
            for client in clients.prefix(3) { await client.disconnect() }
            try await eventually("the closed connections' subscriptions end") {
                streams.allSatisfy { hub.subscriberCount($0) == 1 }
            }
            // The one left still gets the streams' events.
            try await server.server.publish(stream: "app:s20", data: ["n": 1])
            #expect(try await collect(last[19], count: 1).events.first?.data["n"]?.numberValue == 1)
        }
    }
}

extension ChatPermissionTests {
    @Test("a user may create only so many channels; deleting one makes room again")
    func channelsPerUser() async throws {
        try await withServer({ $0.channelsPerUser = 3 }) { server in
            let alice = try await server.client("alice")
            for index in 1...3 { _ = try await alice.createChannel(id: ChannelId("c\(index)"), name: "C\(index)") }
            #expect(await refusal { _ = try await alice.createChannel(id: "c4", name: "C4") } == .rateLimited)
            let bob = try await server.client("bob")
            _ = try await bob.createChannel(id: "b1", name: "B1")
            try await alice.channelController(for: "c2").deleteChannel()
            _ = try await alice.createChannel(id: "c4", name: "C4")
            #expect(await refusal { _ = try await alice.createChannel(id: "c5", name: "C5") } == .rateLimited)
        }
    }
}
