import Foundation
import Greenroom
import Testing

extension OfflineStoreTests {
    @Test("a member removed from channels while offline keeps nothing of them once connected: the screen empties, the list drops them, and no byte of their messages is left in the store's files")
    func removedWhileOffline() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            // Two channels alice is banned from while away: one whose screen she opens
            // again, one that is only a row of her list. A third she stays in.
            let (opened, bob) = try await node.channel(members: ["alice", "bob"])
            let (listed, _) = try await node.channel(members: ["alice", "bob"], id: "listed-only")
            let (kept, _) = try await node.channel(members: ["alice", "bob"], id: "kept")
            let secrets = ["opened-\(UUID().uuidString)", "listed-\(UUID().uuidString)"]
            try await bob.channelController(for: opened).sendMessage(text: secrets[0])
            try await bob.channelController(for: listed).sendMessage(text: secrets[1])
            try await bob.channelController(for: kept).sendMessage(text: "still here")

            let alice = try await node.storeClient("alice", folder: folder)
            #expect(Set(try await alice.channels().items.map(\.id)) == [opened, listed, kept])
            for channel in [opened, listed, kept] { try await alice.channelController(for: channel).synchronize() }
            await alice.disconnect()
            for secret in secrets { #expect(Self.storeFiles(in: folder, contain: secret), "the check finds what the store holds") }

            for channel in [opened, listed] { _ = try await bob.channelController(for: channel).banUser(userId: "alice") }

            // What the device held shows until the server says otherwise.
            let reopened = node.unconnectedStoreClient(folder: folder)
            let screen = reopened.channelController(for: opened)
            try await screen.synchronize()
            #expect(screen.messages.contains { $0.text == secrets[0] })
            try await reopened.connect(token: try await node.token("alice"))
            try await eventually("the screen forgot the channel") { screen.channel == nil && screen.messages.isEmpty }
            #expect(try await reopened.channels().items.map(\.id) == [kept])
            await reopened.disconnect()

            let stored = node.unconnectedStoreClient(folder: folder)
            #expect(try await stored.channels().items.map(\.id) == [kept])
            for secret in secrets { #expect(!Self.storeFiles(in: folder, contain: secret), "\(secret) is still in the store's files") }
            #expect(Self.storeFiles(in: folder, contain: "still here"))
        }
    }

    /// Whether any file of the store in `folder` (the database, its log) holds `text`.
    static func storeFiles(in folder: URL, contain text: String) -> Bool {
        let needle = Data(text.utf8)
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? []
        return files.contains { file in (try? Data(contentsOf: file))?.range(of: needle) != nil }
    }
}
