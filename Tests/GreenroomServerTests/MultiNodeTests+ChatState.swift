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

    @Test("typing on two nodes: a keystroke on node 2 shows on node 1 and on node 2, stop ends it, a start left alone expires; a non-member is refused; nothing is stored")
    func typingAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            let carol = try await two.client("carol")
            _ = try await alice.createChannel(id: "typing", name: "Typing", members: ["bob", "carol"])
            let aliceRoom = alice.channelController(for: "typing")
            let bobRoom = bob.channelController(for: "typing")
            let carolRoom = carol.channelController(for: "typing")
            for room in [aliceRoom, bobRoom, carolRoom] { try await room.synchronize() }
            let before = try await one.rest("GET", "/v1/streams/channel:typing/events?limit=1000").1.arrayValue?.count ?? -1
            let aliceEvents = aliceRoom.events

            try await bobRoom.keystroke()
            try await eventually("alice, on the other node, sees bob typing") { aliceRoom.currentlyTypingUsers == ["bob"] }
            try await eventually("carol, on bob's node, sees bob typing") { carolRoom.currentlyTypingUsers == ["bob"] }
            #expect(bobRoom.currentlyTypingUsers.isEmpty, "the typist is not among those it sees typing")
            try await bobRoom.keystroke()
            try await bobRoom.stopTyping()
            try await eventually("bob's stop reaches alice") { aliceRoom.currentlyTypingUsers.isEmpty }
            // One start, or a refresh too when the keystrokes were further apart than
            // the refresh interval, then the stop.
            let seen = try await chatEvents(aliceEvents) { $0.contains { $0.type == ChatEventType.typingStop } }
            #expect(seen.last?.type == ChatEventType.typingStop && (1...2).contains(seen.count - 1))
            #expect(seen.dropLast().allSatisfy { $0.type == ChatEventType.typingStart })
            #expect(seen.allSatisfy { $0.actorId == "bob" })

            // A start whose stop never comes (the typist's connection gone) expires.
            try await carolRoom.startTyping()
            try await eventually("alice sees carol typing") { aliceRoom.currentlyTypingUsers == ["carol"] }
            await carol.disconnect()
            try await eventually("carol's indicator expires without a stop") { aliceRoom.currentlyTypingUsers.isEmpty }

            let dave = try await one.client("dave")
            #expect(await refusal { try await dave.channelController(for: "typing").startTyping() } == .notChannelMember)
            // Typing wrote nothing: the channel's log is as it was.
            let after = try await one.rest("GET", "/v1/streams/channel:typing/events?limit=1000").1.arrayValue ?? []
            #expect(after.count == before)
            #expect(!after.contains { $0["type"]?.stringValue?.hasPrefix("typing") == true })
            for client in [alice, bob, dave] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}

extension MultiNodeTests {
    @Test("threads and quotes on two nodes through the SDK: replies on node 2 reach the thread and its parent's counts on node 1, not the channel's unread count; thread reads and deletes follow; a quote follows its message's edit and deletion")
    func threadsAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            let carol = try await two.client("carol")
            _ = try await alice.createChannel(id: "threads", name: "Threads", members: ["bob", "carol"])
            let aliceRoom = alice.channelController(for: "threads")
            let bobRoom = bob.channelController(for: "threads")
            let carolRoom = carol.channelController(for: "threads")
            for room in [aliceRoom, bobRoom, carolRoom] { try await room.synchronize() }

            let parent = try await aliceRoom.sendMessage(text: "where shall we meet?")
            try await eventually("carol has the parent unread") { carolRoom.unreadCount == 1 }
            let first = try await bobRoom.sendReply(to: parent.id, text: "the station")
            let second = try await bobRoom.sendReply(to: parent.id, text: "at noon")
            try await eventually("alice, on the other node, has both replies in the thread") {
                aliceRoom.replies(of: parent.id).map(\.id) == [first.id, second.id]
            }
            #expect(aliceRoom.messages.map(\.id) == [parent.id], "replies are not the channel's messages")
            try await eventually("the parent's counts follow") {
                aliceRoom.messages.first?.replyCount == 2 && aliceRoom.messages.first?.latestReplierIds == ["bob"]
            }
            #expect(carolRoom.unreadCount == 1, "replies do not count in the channel's unread messages")
            #expect(aliceRoom.unreadCount == 0)
            let threads = try await alice.currentUserController().loadThreads()
            #expect(threads.items.map(\.parentMessageId) == [parent.id] && threads.items.first?.unreadReplies == 2)
            #expect(try await bobRoom.loadThreadParticipants(of: parent.id).items.map(\.userId) == ["alice", "bob"])
            let read = try await aliceRoom.markThreadRead(parentMessageId: parent.id)
            #expect(read.unreadReplies == 0)
            #expect(try await alice.currentUserController().loadThreads().items.first?.unreadReplies == 0)

            // A thread loads page by page on a controller that did not see it live.
            let bobLaptop = try await one.client("bob")
            let late = bobLaptop.channelController(for: "threads")
            try await late.synchronize()
            let page = try await late.loadPreviousReplies(of: parent.id, limit: 1)
            #expect(page.items.map(\.id) == [second.id] && page.next == second.id)
            try await late.loadPreviousReplies(of: parent.id)
            #expect(late.replies(of: parent.id).map(\.id) == [first.id, second.id])

            _ = try await bobRoom.deleteMessage(messageId: first.id)
            try await eventually("a deleted reply leaves the parent's count on the other node") { aliceRoom.messages.first?.replyCount == 1 }
            #expect(try await alice.currentUserController().loadThreads().items.first?.replyCount == 1)

            // A quote follows the quoted message's edit, and loses its text with its deletion.
            let quoting = try await carolRoom.sendMessage(text: "agreed", quotedMessageId: parent.id)
            #expect(quoting.quotedMessage?.text == "where shall we meet?")
            _ = try await aliceRoom.editMessage(messageId: parent.id, text: "where and when?")
            try await eventually("carol's quote shows the edit") {
                carolRoom.messages.first { $0.id == quoting.id }?.quotedMessage?.text == "where and when?"
            }
            _ = try await aliceRoom.deleteMessage(messageId: parent.id)
            try await eventually("carol's quote loses the deleted text") {
                let quote = carolRoom.messages.first { $0.id == quoting.id }?.quotedMessage
                return quote?.text == "" && quote?.deletedAt != nil
            }
            let reloaded = try await bobRoom.loadNextMessages(after: parent.id)
            #expect(reloaded.items.first { $0.id == quoting.id }?.quotedMessage?.text == "")
            for client in [alice, bob, carol, bobLaptop] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}

extension MultiNodeTests {
    @Test("online state on two nodes: a member connecting to node 2 is seen online on node 1 and offline once it leaves; user.presence agrees on both nodes")
    func onlineStateAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let bobFirst = try await two.client("bob")
            await bobFirst.disconnect()
            let alice = try await one.client("alice")
            _ = try await alice.createChannel(id: "online", name: "Online", members: ["bob"])
            let aliceRoom = alice.channelController(for: "online")
            try await aliceRoom.synchronize()

            let bob = try await two.client("bob")
            try await eventually("alice on node 1 sees bob online on node 2") { aliceRoom.presence(of: "bob")?.online == true }
            #expect(try await alice.userPresence(of: ["bob"]).first?.online == true)
            #expect(try await bob.userPresence(of: ["alice"]).first?.online == true)
            await bob.disconnect()
            try await eventually("alice sees bob offline") { aliceRoom.presence(of: "bob")?.online == false }
            #expect(try await alice.userPresence(of: ["bob"]).first?.online == false)
            await alice.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}

extension MultiNodeTests {
    @Test("moderation on two nodes through the SDK: an operator on node 1 mutes, freezes and slows the channel; a member on node 2 is refused with each one's own code and sees the changes")
    func moderationAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            _ = try await alice.createChannel(id: "moderated", name: "Moderated", members: ["bob"])
            let aliceRoom = alice.channelController(for: "moderated")
            let bobRoom = bob.channelController(for: "moderated")
            for room in [aliceRoom, bobRoom] { try await room.synchronize() }

            _ = try await aliceRoom.muteUser(userId: "bob")
            #expect(await refusal { _ = try await bobRoom.sendMessage(text: "muted") } == .userMuted)
            try await eventually("bob's controller sees his own mute") { bobRoom.channel?.membership?.isMuted() == true }
            _ = try await aliceRoom.unmuteUser(userId: "bob")
            _ = try await aliceRoom.freeze()
            try await eventually("bob sees the channel frozen") { bobRoom.channel?.isFrozen == true }
            #expect(await refusal { _ = try await bobRoom.sendMessage(text: "frozen") } == .channelFrozen)
            _ = try await aliceRoom.unfreeze()
            _ = try await aliceRoom.setSlowMode(seconds: 30)
            try await eventually("bob sees slow mode") { bobRoom.channel?.slowModeSeconds == 30 }
            _ = try await bobRoom.sendMessage(text: "once")
            #expect(await refusal { _ = try await bobRoom.sendMessage(text: "twice") } == .slowModeActive)
            _ = try await aliceRoom.sendMessage(text: "operators are not slowed")
            for client in [alice, bob] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
