import Foundation
import Greenroom
import GreenroomServer
import GreenroomUI
import Testing

/// Records a channel list's delegate calls.
@MainActor
final class ChannelListRecorder: ChannelListViewModelDelegate {
    var changes = 0
    var errors: [GreenroomError] = []
    func channelListViewModel(_ viewModel: ChannelListViewModel, didChangeRows rows: [ChannelListViewModel.Row]) { changes += 1 }
    func channelListViewModel(_ viewModel: ChannelListViewModel, didReceiveError error: GreenroomError, isBlocker: Bool) { errors.append(error) }
}

/// A list of joined channels only: the override points as an app uses them.
@MainActor
final class JoinedChannelList: ChannelListViewModel {
    override func filterChannels(_ channels: [ChatChannel]) -> [ChatChannel] { channels.filter { $0.membership?.state == .joined } }
}

extension ViewModelTests {
    @Test("channel list: rows by latest activity with unread badges, last messages and typists kept current by each channel's events; a read on another device clears a badge; channels added and deleted elsewhere come and go; a subclass filters")
    @MainActor
    func channelList() async throws {
        try await withServerOnMain { server in
            try await server.createUsers(["alice", "bob", "carol"])
            let bob = try await server.client("bob")
            let carol = try await server.client("carol")
            let alicePhone = try await server.client("alice")
            try await alicePhone.setChannelInvitationPreference(autoAccept: false)
            _ = try await bob.createChannel(id: "a", name: "A", members: ["alice"])
            _ = try await bob.createChannel(id: "b", name: "B", members: ["alice"])
            _ = try await carol.createChannel(id: "c", name: "C", members: ["alice"])
            _ = try await alicePhone.channelController(for: "a").acceptInvitation()
            _ = try await alicePhone.channelController(for: "b").acceptInvitation()
            let bobA = bob.channelController(for: "a"), bobB = bob.channelController(for: "b")
            try await bobA.synchronize()
            try await bobB.synchronize()
            _ = try await bobA.sendMessage(text: "first in a")

            let alice = try await server.client("alice")
            let recorder = ChannelListRecorder()
            let list = ChannelListViewModel()
            list.delegate = recorder
            list.client = alice
            try await eventuallyOnMain("the first page is listed") { list.rows.count == 3 }
            #expect(list.rows.map(\.id) == ["a", "c", "b"], "a's message is the latest activity, then c's creation")
            let invitation = try #require(list.rows.first { $0.id == "c" })
            #expect(invitation.isInvitation && invitation.unreadCount == 0 && invitation.lastMessage == nil)
            #expect(list.rows.first { $0.id == "a" }?.lastMessage?.text == "first in a")

            _ = try await bobB.sendMessage(text: "news in b")
            _ = try await bobB.sendMessage(text: "more in b")
            try await eventuallyOnMain("b rises with its badge and last message") {
                list.rows.first?.id == "b" && list.rows.first?.unreadCount == 2 && list.rows.first?.lastMessage?.text == "more in b"
            }
            #expect(list.totalUnreadCount == 3)
            try await bobA.keystroke()
            try await eventuallyOnMain("bob typing shows on a") { list.rows.first { $0.id == "a" }?.typingUserIds == ["bob"] }
            try await bobA.stopTyping()
            try await eventuallyOnMain("and stops") { list.rows.first { $0.id == "a" }?.typingUserIds.isEmpty == true }

            // A read on alice's phone clears the badge here.
            let phoneB = alicePhone.channelController(for: "b")
            try await phoneB.synchronize()
            try await phoneB.markRead()
            try await eventuallyOnMain("b's badge clears") { list.rows.first { $0.id == "b" }?.unreadCount == 0 }

            // Added and deleted elsewhere.
            _ = try await carol.createChannel(id: "d", name: "D", members: ["alice", "bob"])
            try await eventuallyOnMain("an invitation to d appears") { list.rows.contains { $0.id == "d" } }
            try await bobB.deleteChannel()
            try await eventuallyOnMain("b goes") { !list.rows.contains { $0.id == "b" } }
            #expect(recorder.errors.isEmpty && recorder.changes > 3)

            // A client follows a stream once: a second list runs on its own connection.
            let aliceTablet = try await server.client("alice")
            let joinedOnly = JoinedChannelList(client: aliceTablet)
            try await eventuallyOnMain("the subclass lists joined channels only") { joinedOnly.rows.map(\.id) == ["a"] }
            await joinedOnly.stopWatching()
            await list.stopWatching()
        }
    }
}
