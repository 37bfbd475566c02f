import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

@Suite("Chat: channels, members, invitations and messages", .wholeRun)
struct ChatTests {
    @Test("pending invitations: accepted and declined, with the events each side sees")
    func pendingInvitations() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob", "carol"])
            let alice = users["alice"]!, bob = users["bob"]!, carol = users["carol"]!
            #expect(try await bob.channelInvitationPreference().autoAccept)
            try await bob.setChannelInvitationPreference(autoAccept: false)
            try await carol.setChannelInvitationPreference(autoAccept: false)
            let bobInbox = try await bob.subscribe(to: StreamName.user("bob"))
            let carolInbox = try await carol.subscribe(to: StreamName.user("carol"))

            _ = try await alice.createChannel(id: "club", name: "Club")
            let club = alice.channelController(for: "club")
            try await club.synchronize()
            let aliceEvents = club.events
            let invited = try await club.inviteUserIds(["bob", "carol"])
            #expect(invited.map(\.state) == [.invited, .invited])
            #expect(try await club.loadMembers(filter: .invited).items.map(\.userId) == ["bob", "carol"])
            #expect(try await alice.channel("club").memberCount == 1)

            // Each invitee hears of it on its own stream, and may read the channel but not its messages.
            let bobNote = try #require(ChatEvent(try await collect(bobInbox, count: 1).events[0]))
            #expect(bobNote.type == ChatEventType.channelInvited && bobNote.actorId == "alice" && bobNote.channel?.name == "Club")
            let carolNote = try #require(ChatEvent(try await collect(carolInbox, count: 1).events[0]))
            #expect(carolNote.type == ChatEventType.channelInvited)
            #expect(try await bob.channel("club").membership?.state == .invited)
            #expect(try await bob.channels().items.map(\.id) == ["club"])
            #expect(try await bob.channels(includeInvitations: false).items.isEmpty)
            let bobClub = bob.channelController(for: "club")
            #expect(await refusal { try await bobClub.sendMessage(text: "early") } == .notChannelMember)

            try await bobClub.acceptInvitation()
            try await bobClub.synchronize()
            #expect(bobClub.channel?.membership?.state == .joined)
            try await bobClub.sendMessage(text: "thanks")
            try await carol.channelController(for: "club").declineInvitation()
            #expect(await refusal { try await carol.channelController(for: "club").acceptInvitation() } == .invitationNotFound)

            let seen = try await chatEvents(aliceEvents) { $0.contains { $0.type == ChatEventType.invitationDeclined } }
            #expect(seen.map(\.type) == [ChatEventType.memberInvited, ChatEventType.memberInvited, ChatEventType.memberJoined,
                                          ChatEventType.messageNew, ChatEventType.invitationDeclined])
            #expect(seen[2].member?.userId == "bob" && seen[4].member?.userId == "carol")
            #expect(try await club.loadMembers().items.map(\.userId) == ["alice", "bob"])
            #expect(try await alice.channel("club").memberCount == 2)
            #expect(try await carol.channels().items.isEmpty)
            // With automatic acceptance back on, an invitation makes a member at once.
            try await carol.setChannelInvitationPreference(autoAccept: true)
            let again = try await club.inviteUserIds(["carol"])
            #expect(again.map(\.state) == [.joined])
            let added = try await collect(carolInbox, count: 1).events[0]
            #expect(added.type == ChatEventType.channelAdded)
        }
    }

    @Test("a resend with the same idempotency key stores one message")
    func idempotentSend() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            _ = try await alice.createChannel(id: "solo")
            let room = alice.channelController(for: "solo")
            try await room.synchronize()
            let events = room.events
            let first = try await room.sendMessage(text: "once", idempotencyKey: "k-1")
            let again = try await room.sendMessage(text: "once", idempotencyKey: "k-1")
            let other = try await room.sendMessage(text: "twice", idempotencyKey: "k-2")
            #expect(first == again)
            #expect(other.id != first.id && other.sequence == first.sequence + 1)
            let history = try await alice.channelController(for: "solo").loadPreviousMessages(limit: 100).items
            #expect(history.map(\.text) == ["once", "twice"])
            let seen = try await chatEvents(events) { $0.count == 2 }
            #expect(seen.map { $0.message?.id } == [first.id, other.id])
            // Raw: the same through the protocol, as another SDK would resend.
            #expect(alice.currentUserId == "alice")
            // Messages sent with createNewMessage go out in the order of the calls.
            let ordered = alice.channelController(for: "solo")
            for index in 1...30 { ordered.createNewMessage(text: "n\(index)") }
            // The SDK sends them one after another, each once the one before is acknowledged:
            // on a loaded machine (the whole suite at once) that takes a while.
            try await eventually("30 more messages are stored", timeout: .seconds(60)) {
                (try await alice.channelController(for: "solo").loadPreviousMessages(limit: 100).items.count) == 32
            }
            let stored = try await alice.channelController(for: "solo").loadPreviousMessages(limit: 100).items.map(\.text)
            #expect(Array(stored.suffix(30)) == (1...30).map { "n\($0)" })
            let raw: ChatMessage = try await alice.send(ChatOperation.sendMessage, args: MessageSendArgs(channelId: "solo", text: "once", idempotencyKey: "k-1"))
            #expect(raw.id == first.id)
        }
    }

    @Test("two members; one is disconnected while 200 messages are sent; on reconnect it receives every one, in order")
    func recoveryAfterDisconnect() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let gate = Locked(false)
            let bob = server.track(GreenroomClient(configuration: {
                var config = ClientConfiguration(serverURL: server.url)
                config.initialReconnectDelay = .milliseconds(50)
                return config
            }()))
            let token = try await server.token("bob")
            // The provider holds bob offline until the gate opens.
            try await bob.connect(token: token) {
                while !gate.value { try await Task.sleep(for: .milliseconds(20)) }
                return try await server.token("bob")
            }
            _ = try await alice.createChannel(id: "pair", members: ["bob"])
            let bobRoom = bob.channelController(for: "pair")
            try await bobRoom.synchronize()
            let bobEvents = bobRoom.events
            let aliceRoom = alice.channelController(for: "pair")
            try await aliceRoom.sendMessage(text: "before")
            _ = try await chatEvents(bobEvents) { $0.count == 1 }

            #expect(server.server.disconnectClients(userId: "bob", code: .tokenExpired) == 1)
            try await eventually("bob is offline") { !bob.connectionState.isConnected && server.server.connectionCount == 1 }
            for index in 1...200 { try await aliceRoom.sendMessage(text: "m\(index)") }
            #expect(!bob.connectionState.isConnected)
            gate.withLock { $0 = true }

            let received = try await chatEvents(bobEvents, timeout: .seconds(60)) { $0.count == 200 }
            #expect(received.map { $0.message?.text } == (1...200).map { "m\($0)" })
            #expect(received.map { $0.message?.sequence ?? 0 } == Array(2...201))
            #expect(bobRoom.messages.map(\.text) == ["before"] + (1...200).map { "m\($0)" })
            #expect(bob.connectionState == .connected)
        }
    }

    @Test("seed 002: extra data on users and messages, and the BookingFlight example read back by another user")
    func seedExtraData() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob"])
            let client: ChatClient = users["alice"]!
            // The seed's own lines, with the vendor's type names replaced.
            let currentUserController = client.currentUserController()
            let updated = Locked(false)
            currentUserController.updateUserData(name: "John Doe", imageURL: nil, userExtraData: ["email": .string("john.doe@example.com")]) { error in
                #expect(error == nil)
                updated.withLock { $0 = true }
            }
            try await eventually("the user data is updated") { updated.value }
            let user = try await users["bob"]!.user(id: "alice")
            #expect(user.nickname == "John Doe")
            #expect((user.extraData["email"]?.stringValue ?? "") == "john.doe@example.com")

            let yourChannelId = try await client.createChannel(name: "Trips", members: ["bob"]).id
            let extraData: [String: RawJSON] = ["ticket": ["name": .string("Rock Concert"), "price": .double(20)]]
            let channelController = client.channelController(for: yourChannelId)
            channelController.createNewMessage(text: "A new message", extraData: extraData)

            let bookingFlight = BookingFlight(
                flightNumber: 714, departureDate: Date(timeIntervalSince1970: 1_800_000_000), arrivalDate: Date(timeIntervalSince1970: 1_800_030_600),
                price: 1_234.5, passengers: [Passenger(name: "Ann", age: 34), Passenger(name: "Ben", age: 7)], destinations: ["LIS", "NRT"])
            let flightExtraData: [String: RawJSON] = ["flight": .dictionary(bookingFlight.toExtraData())]
            let sent = Locked<ChatMessage?>(nil)
            channelController.createNewMessage(text: "A new message", extraData: flightExtraData) { result in
                sent.withLock { $0 = try? result.get() }
            }
            try await eventually("the flight message is stored") { sent.value != nil }

            let bobController = users["bob"]!.channelController(for: yourChannelId)
            let history = try await bobController.loadPreviousMessages(limit: 10).items
            #expect(history.count == 2)
            let ticket = history[0].extraData["ticket"]?.dictionaryValue
            #expect(ticket?["name"]?.stringValue ?? "" == "Rock Concert")
            #expect(ticket?["price"]?.doubleValue ?? 0.0 == 20)
            let readBack = try #require(history[1].bookingFlight)
            #expect(readBack == bookingFlight)
            #expect(history[1].id == sent.value?.id)
        }
    }

    @Test("history pages, reactions with extra data, channel lists by activity, events through the stream and the delegate")
    func historyReactionsAndLists() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob"])
            let alice = users["alice"]!, bob = users["bob"]!
            for name in ["one", "two", "three"] { _ = try await alice.createChannel(id: ChannelId(name), members: ["bob"]) }
            let two = alice.channelController(for: "two")
            var sent: [ChatMessage] = []
            for index in 1...120 { sent.append(try await two.sendMessage(text: "t\(index)")) }
            _ = try await alice.channelController(for: "one").sendMessage(text: "latest")

            // Newest activity first, in cursor pages.
            let firstPage = try await bob.channels(limit: 2)
            #expect(firstPage.items.map(\.id) == ["one", "two"])
            let secondPage = try await bob.channels(limit: 2, cursor: firstPage.next)
            #expect(secondPage.items.map(\.id) == ["three"] && secondPage.next == nil)
            #expect(firstPage.items[0].membership?.userId == "bob")

            let bobTwo = bob.channelController(for: "two")
            let latest = try await bobTwo.loadPreviousMessages(limit: 100)
            #expect(latest.items.map(\.text) == (21...120).map { "t\($0)" } && latest.next == sent[20].id)
            let older = try await bobTwo.loadPreviousMessages(before: latest.next, limit: 100)
            #expect(older.items.map(\.text) == (1...20).map { "t\($0)" } && older.next == nil)
            let after = try await bobTwo.loadNextMessages(after: sent[9].id, limit: 5)
            #expect(after.items.map(\.text) == (11...15).map { "t\($0)" } && after.next == sent[14].id)
            #expect(await refusal { _ = try await bobTwo.loadPreviousMessages(limit: 101) } == .invalidParameterValue)
            #expect(bobTwo.messages.count == 120)

            @MainActor final class Recorder: ChatChannelControllerDelegate {
                var types: [String] = []
                func channelController(_ controller: ChatChannelController, didReceiveEvent event: ChatEvent) { types.append(event.type) }
            }
            let recorder = Recorder()
            try await bobTwo.synchronize()
            bobTwo.delegate = recorder
            let events = bobTwo.events
            let target = sent[0].id
            let liked = try await two.addReaction("like", messageId: target, extraData: ["emoji": "👍"])
            _ = try await bobTwo.addReaction("like", messageId: target)
            _ = try await bobTwo.addReaction("wow", messageId: target)
            let removed = try await bobTwo.deleteReaction("wow", messageId: target)
            #expect(liked.reactionCounts == ["like": 1])
            #expect(removed.reactionCounts == ["like": 2])
            #expect(removed.reactions.first?.extraData == ["emoji": "👍"])
            _ = try await two.partialChannelUpdate(name: "Second")
            let seen = try await chatEvents(events) { $0.count == 5 }
            #expect(seen.map(\.type) == [ChatEventType.reactionNew, ChatEventType.reactionNew, ChatEventType.reactionNew,
                                          ChatEventType.reactionDeleted, ChatEventType.channelUpdated])
            #expect(seen[3].reaction?.type == "wow" && seen[3].reaction?.userId == "bob")
            #expect(bobTwo.messages.first?.reactionCounts == ["like": 2])
            #expect(bobTwo.channel?.name == "Second")
            try await eventually("the delegate saw all five") { await MainActor.run { recorder.types.count } == 5 }
            #expect(await MainActor.run { recorder.types } == seen.map(\.type))
        }
    }

    @Test("leaving ends the channel's stream for the leaver; distinct channels are reused; join a public channel")
    func leaveDistinctAndPublic() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob", "carol"])
            let alice = users["alice"]!, bob = users["bob"]!, carol = users["carol"]!
            let dm = try await alice.createChannel(members: ["bob"], isDistinct: true)
            let same = try await alice.createChannel(members: ["bob", "alice"], isDistinct: true)
            let fromBob = try await bob.createChannel(members: ["alice"], isDistinct: true)
            let other = try await alice.createChannel(members: ["bob", "carol"], isDistinct: true)
            #expect(same.id == dm.id && fromBob.id == dm.id && other.id != dm.id)

            let bobRoom = bob.channelController(for: dm.id)
            try await bobRoom.synchronize()
            let bobEvents = bobRoom.events
            let bobInbox = try await bob.subscribe(to: StreamName.user("bob"))
            try await bobRoom.leave()
            let seen = try await chatEvents(bobEvents) { $0.contains { $0.type == ChatEventType.memberLeft } }
            #expect(seen.last?.member?.userId == "bob")
            try await alice.channelController(for: dm.id).sendMessage(text: "after bob left")
            // An event published after that message reaches bob; the message never does.
            _ = try await alice.createChannel(id: "marker", members: ["bob"])
            let marker = try await collect(bobInbox, count: 1).events[0]
            #expect(marker.type == ChatEventType.channelAdded)
            #expect(bobRoom.messages.isEmpty)
            // The SDK forgot the subscription (else this would be `alreadyExists`) and the server refuses it.
            let resubscribe = await refusal { _ = try await bob.subscribe(to: dm.id.stream) }
            #expect(resubscribe == .notChannelMember)

            let lobby = try await alice.createChannel(id: "lobby", isPublic: true)
            #expect(try await carol.channel("lobby").membership == nil)
            let joined = try await carol.channelController(for: lobby.id).join()
            #expect(joined.state == .joined && !joined.isOperator)
            try await carol.channelController(for: "lobby").sendMessage(text: "hi all")
            #expect(try await alice.channel("lobby").memberCount == 2)
        }
    }
}
