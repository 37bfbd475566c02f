import Foundation
import Greenroom
import GreenroomUI
import Testing

extension OfflineStoreTests {
    @Test("the channel list view model on a new client with a store shows the stored rows and last messages while the server is down, and each row catches up once it is back; the channel's screen then loads the messages the list did not keep")
    func channelListFromStore() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let (channel, bob) = try await node.channel(members: ["alice", "bob"])
            try await bob.channelController(for: channel).sendMessage(text: "second")
            let alice = try await node.storeClient("alice", folder: folder)
            try await Self.listShows(alice, channel: channel, lastMessage: "second")
            await alice.disconnect()
            try await bob.channelController(for: channel).sendMessage(text: "later")
            let token = try await node.token("alice")
            try await node.stop()

            let reopened = node.unconnectedStoreClient(folder: folder)
            let connecting = Task { try? await reopened.connect(token: token) }
            let list = try await Self.listShows(reopened, channel: channel, lastMessage: "second")
            try await node.start()
            _ = await connecting.value
            try await eventually("the row caught up") { await MainActor.run { list.rows.first?.lastMessage?.text == "later" } }
            await list.stopWatching()

            // The list kept each channel's newest message only: the channel's own screen
            // asks for more, and gets the latest page besides the stored position's replay.
            let screen = reopened.channelController(for: channel)
            try await screen.synchronize()
            #expect(screen.messages.map(\.text) == ["hello", "second", "later"])
        }
    }

    /// Makes a channel list on `client` and waits until its one row is `channel` with
    /// `lastMessage`.
    @discardableResult
    @MainActor
    private static func listShows(_ client: GreenroomClient, channel: ChannelId, lastMessage: String) async throws -> ChannelListViewModel {
        let list = ChannelListViewModel(client: client)
        try await eventuallyOnMain("the list shows \(channel) with \(lastMessage)") {
            list.rows.map(\.id) == [channel] && list.rows.first?.lastMessage?.text == lastMessage
        }
        return list
    }
}
