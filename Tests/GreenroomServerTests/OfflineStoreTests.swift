import Foundation
import Greenroom
import GreenroomServer
import GreenroomProtocol
import Testing

/// The SDK's local store (`ClientConfiguration.localStore`): screens that open from it,
/// actions queued while offline and sent once each, and the store brought up to date from
/// its stream positions. Real server (stopped and started again on its port and data
/// directory), real SQLite file on both sides.
@Suite("SDK offline: local store and queued actions", .wholeRun)
struct OfflineStoreTests {
    @Test("5 messages sent while the server is stopped show pending at once, and once it is back each arrives once, in order, and goes pending → sent")
    func queuedWhileServerDown() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let (channel, _) = try await node.channel(members: ["alice", "bob"])
            let alice = try await node.storeClient("alice", folder: folder)
            let controller = alice.channelController(for: channel)
            let recorder = await MainActor.run { MessageRecorder() }
            controller.delegate = recorder
            try await controller.synchronize()

            try await node.stop()
            try await eventually("alice sees the connection lost") { !alice.connectionState.isConnected }
            let outcomes = Outcomes()
            for index in 1...5 {
                controller.createNewMessage(text: "offline \(index)") { result in outcomes.add(result) }
            }
            try await eventually("the 5 messages show pending") {
                controller.messages.filter { $0.localState == .pending }.map(\.text) == (1...5).map { "offline \($0)" }
            }
            let queued = try await alice.queuedActions()
            #expect(queued.map(\.kind) == Array(repeating: .sendMessage, count: 5) && queued.allSatisfy { $0.state == .pending })

            try await node.start()
            try await eventually("every send completed") { outcomes.count == 5 }
            #expect(outcomes.failures.isEmpty, "\(outcomes.failures)")
            let sent = controller.messages.filter { $0.text.hasPrefix("offline") }
            #expect(sent.map(\.text) == (1...5).map { "offline \($0)" })
            #expect(sent.allSatisfy { $0.localState == nil && !$0.id.hasPrefix("local-") })
            #expect(try await node.serverTexts(of: channel) == (1...5).map { "offline \($0)" }, "each message stored once, in order")
            #expect(try await alice.queuedActions().isEmpty)
            let seen = await recorder.states(of: "offline 3")
            #expect(seen.first == .pending && seen.last == .some(nil), "\(seen)")
        }
    }

    @Test("messages queued by one client are sent by the next client on the same store, after the process is replaced, each once")
    func queuedAcrossProcesses() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let (channel, _) = try await node.channel(members: ["alice", "bob"])
            let first = try await node.storeClient("alice", folder: folder)
            let firstController = first.channelController(for: channel)
            try await firstController.synchronize()
            let token = try await node.token("alice")
            try await node.stop()
            for index in 1...5 { firstController.createNewMessage(text: "queued \(index)") }
            try await eventually("the 5 messages are queued") { try await first.queuedActions().count == 5 }
            await first.disconnect()

            // The app's process is replaced: a new client on the same folder, started while
            // the server is still down.
            let second = node.unconnectedStoreClient(folder: folder)
            let connecting = Task { try? await second.connect(token: token) }
            let controller = second.channelController(for: channel)
            try await controller.synchronize()
            #expect(controller.messages.filter { $0.localState == .pending }.map(\.text) == (1...5).map { "queued \($0)" })

            try await node.start()
            try await eventually("the queue is empty") { try await second.queuedActions().isEmpty }
            _ = await connecting.value
            #expect(try await node.serverTexts(of: channel) == (1...5).map { "queued \($0)" })
            try await eventually("the controller shows them sent") {
                controller.messages.filter { $0.text.hasPrefix("queued") }.allSatisfy { $0.localState == nil && !$0.id.hasPrefix("local-") }
            }
            await second.disconnect()
        }
    }

    @Test("a new client on an existing store lists channels, messages and the user before its first connect completes; events missed meanwhile (messages, an edit, a deletion, a member leaving) are in the store after the resume")
    func opensFromStoreAndCatchesUp() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let (channel, bob) = try await node.channel(members: ["alice", "bob", "carol"])
            let edited = try await bob.channelController(for: channel).sendMessage(text: "draft")
            let doomed = try await bob.channelController(for: channel).sendMessage(text: "oops, wrong channel")
            let alice = try await node.storeClient("alice", folder: folder)
            let me = try await alice.currentUserController().currentUser()
            #expect(try await alice.channels().items.map(\.id).contains(channel))
            try await alice.channelController(for: channel).synchronize()
            await alice.disconnect()

            // Missed while alice is away.
            let bobs = bob.channelController(for: channel)
            try await bobs.editMessage(messageId: edited.id, text: "final")
            try await bobs.deleteMessage(messageId: doomed.id)
            try await bobs.sendMessage(text: "while you were out")
            let carol = try await node.client("carol")
            try await carol.channelController(for: channel).leave()
            let token = try await node.token("alice")
            try await node.stop()

            let reopened = node.unconnectedStoreClient(folder: folder)
            let connecting = Task { try? await reopened.connect(token: token) }
            #expect(try await reopened.channels().items.map(\.id).contains(channel), "from the store")
            #expect(try await reopened.currentUserController().currentUser().id == me.id)
            let controller = reopened.channelController(for: channel)
            try await controller.synchronize()
            #expect(controller.messages.map(\.text) == ["hello", "draft", "oops, wrong channel"], "what the store held")
            #expect(controller.channel?.memberCount == 3)

            try await node.start()
            _ = await connecting.value
            try await eventually("alice's controller caught up") {
                controller.messages.map(\.text) == ["hello", "final", "", "while you were out"] && controller.channel?.memberCount == 2
            }
            await reopened.disconnect()
            // A third client that never connects reads the store only. The controller
            // shows an event before its write to the store ends: wait for the last one.
            let storeOnly = node.unconnectedStoreClient(folder: folder)
            let stored = storeOnly.channelController(for: channel)
            try await eventually("the store holds the last event, the member leaving") {
                try await stored.synchronize()
                return stored.channel?.memberCount == 2
            }
            #expect(stored.messages.map(\.text) == ["hello", "final", "", "while you were out"])
            #expect(stored.messages.first { $0.id == doomed.id }?.isDeleted == true)
            #expect(!Self.storeFiles(in: folder, contain: "oops, wrong channel"), "a deleted message's text leaves the store's files")
        }
    }

    @Test("a resume the server cannot replay (recovered: false, the log trimmed past the stored position) reloads the channel into the store")
    func unrecoverableResumeReloads() async throws {
        try await withRestartableServer({ $0.retentionCount = 10 }) { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let (channel, bob) = try await node.channel(members: ["alice", "bob"])
            let alice = try await node.storeClient("alice", folder: folder)
            try await alice.channelController(for: channel).synchronize()
            await alice.disconnect()
            let bobs = bob.channelController(for: channel)
            for index in 1...30 { try await bobs.sendMessage(text: "b\(index)") }

            let again = try await node.storeClient("alice", folder: folder)
            let controller = again.channelController(for: channel)
            try await controller.synchronize()
            try await eventually("the reload replaced the stale messages") { controller.messages.last?.text == "b30" }
            #expect(controller.messages.map(\.text) == ["hello"] + (1...30).map { "b\($0)" })
            await again.disconnect()
            let stored = node.unconnectedStoreClient(folder: folder).channelController(for: channel)
            try await eventually("the store holds the reloaded messages") {
                try await stored.synchronize()
                return stored.messages.last?.text == "b30" && stored.messages.count == 31
            }
        }
    }

    @Test("a queued send to a channel deleted meanwhile ends failed with notFound and the next is sent; a queued edit of a message deleted meanwhile fails; the app can discard a failed action, or retry it")
    func refusedActionsDoNotBlock() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let (doomed, bob) = try await node.channel(members: ["alice", "bob"])
            let (kept, _) = try await node.channel(members: ["alice", "bob"], id: "kept")
            let alice = try await node.storeClient("alice", folder: folder)
            let doomedController = alice.channelController(for: doomed)
            let keptController = alice.channelController(for: kept)
            try await doomedController.synchronize()
            try await keptController.synchronize()
            let mine = try await keptController.sendMessage(text: "to be edited")
            await alice.disconnect()

            let outcomes = Outcomes()
            doomedController.createNewMessage(text: "into the void") { outcomes.add($0) }
            let edit = Task { try await keptController.editMessage(messageId: mine.id, text: "edited offline") }
            try await eventually("the edit is queued") { try await alice.queuedActions().count == 2 }
            keptController.createNewMessage(text: "still delivered") { outcomes.add($0) }
            try await eventually("three actions queued") { try await alice.queuedActions().count == 3 }
            #expect(keptController.messages.first { $0.id == mine.id }?.text == "edited offline")
            #expect(keptController.messages.first { $0.id == mine.id }?.localState == .pending)

            try await bob.channelController(for: doomed).deleteChannel()
            try await bob.channelController(for: kept).deleteMessage(messageId: mine.id)
            try await alice.connect(token: try await node.token("alice"))

            try await eventually("both sends ended") { outcomes.count == 2 }
            #expect(await refusal { _ = try await edit.value } == .messageNotFound)
            #expect(outcomes.failures.map(\.errorCode) == [.notFound])
            #expect(try await node.serverTexts(of: kept).contains("still delivered"))
            let failed = try await alice.queuedActions()
            #expect(failed.count == 2 && failed.allSatisfy { $0.state == .failed })
            let failedSend = try #require(failed.first { $0.kind == .sendMessage })
            #expect(failedSend.error?.errorCode == .notFound)
            try await eventually("the local copy shows failed") {
                doomedController.messages.contains { $0.id == failedSend.messageId && $0.localState == .failed && $0.localError?.errorCode == .notFound }
            }
            try await alice.discard(failedSend)
            try await eventually("the discarded copy is gone") { !doomedController.messages.contains { $0.id == failedSend.messageId } }
            // The failed edit, retried offline, waits again; connected, it is refused again.
            let failedEdit = try #require(try await alice.queuedActions().first)
            #expect(failedEdit.kind == .editMessage && failedEdit.error?.errorCode == .messageNotFound)
            await alice.disconnect()
            try await alice.retry(failedEdit)
            #expect(try await alice.queuedActions().map(\.state) == [.pending])
            #expect(keptController.messages.first { $0.id == mine.id }?.localState == .pending)
            try await alice.connect(token: try await node.token("alice"))
            try await eventually("the retried edit is refused again") { try await alice.queuedActions().first?.state == .failed }
            #expect(try await alice.queuedActions().first?.error?.errorCode == .messageNotFound)
            await alice.logout()
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("greenroom-store.sqlite").path))
        }
    }

    @Test("the first pages of the live event list and of the video feed answer from the store while the server is down")
    func liveEventsAndFeedFromStore() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let alice = try await node.storeClient("alice", folder: folder, grants: VideoTests.allScopes)
            let params = LiveEvent.CreateParams()
            params.title = "Launch"
            params.userIdsForHost = ["alice"]
            let live = try await alice.createLiveEvent(config: params)
            let creator = try await node.token("alice", grants: VideoTests.allScopes)
            #expect(try await node.server.rest("POST", "/v1/videos", body: ["title": "Mine"], key: creator).0 == 201)
            let feed = VideoSession(client: alice, notificationCenter: NotificationCenter())
            #expect(try await alice.createLiveEventListQuery().next().map(\.liveEventId) == [live.liveEventId])
            #expect(try await feed.videos().items.map(\.title) == ["Mine"])
            try await node.stop()

            let reopened = node.unconnectedStoreClient(folder: folder)
            #expect(try await reopened.createLiveEventListQuery().next().map(\.liveEventId) == [live.liveEventId])
            let storedFeed = VideoSession(client: reopened, notificationCenter: NotificationCenter())
            #expect(try await storedFeed.videos().items.map(\.title) == ["Mine"])
            // Only the first page of a query is kept.
            #expect(await refusal { _ = try await storedFeed.videos(cursor: "next") } != nil)
        }
    }

    @Test("the store keeps the newest messages of each channel and the most recently active channels, as its limits say")
    func limitsBoundTheStore() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let limits = LocalStoreLimits(messagesPerChannel: 5, channels: 2)
            var channels: [ChannelId] = []
            for index in 1...3 {
                let (channel, bob) = try await node.channel(members: ["alice", "bob"], id: ChannelId("limited-\(index)"))
                for message in 1...8 { try await bob.channelController(for: channel).sendMessage(text: "c\(index) m\(message)") }
                channels.append(channel)
            }
            let alice = try await node.storeClient("alice", folder: folder, limits: limits)
            for channel in channels { try await alice.channelController(for: channel).synchronize(messageLimit: 8) }
            #expect(try await alice.channels().items.count == 3)
            await alice.disconnect()

            let storeOnly = node.unconnectedStoreClient(folder: folder, limits: limits)
            #expect(try await storeOnly.channels().items.map(\.id) == [channels[2], channels[1]], "the two most recently active")
            let newest = storeOnly.channelController(for: channels[2])
            try await newest.synchronize()
            #expect(newest.messages.map(\.text) == (4...8).map { "c3 m\($0)" })
        }
    }

    /// A folder of its own for one test's store.
    static func folder() -> URL {
        TemporaryPaths.make("-store")
    }
}

/// A server that a test stops and starts again on the same port and data directory.
final class RestartableNode: Sendable {
    let directory: String
    let port: Int
    let url: URL
    private let configure: @Sendable (inout ServerConfiguration) -> Void
    private let current: Locked<TestServer?>
    /// Every server started, whose clients ``shutdown()`` disconnects.
    private let started: Locked<[TestServer]>
    /// Clients made without a server's help.
    private let loose = Locked<[GreenroomClient]>([])

    init(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void) async throws {
        directory = TestServer.makeDataDirectory()
        self.configure = configure
        let server = try await TestServer.start(dataDirectory: directory, configure)
        port = server.port
        url = server.url
        current = Locked(server)
        started = Locked([server])
    }

    var server: TestServer {
        get throws {
            guard let server = current.withLock({ $0 }) else { throw TestTimeout(what: "the server is stopped") }
            return server
        }
    }

    /// Stops the server; its clients stay, reconnecting until it is back.
    func stop() async throws {
        let server = current.withLock { server in
            defer { server = nil }
            return server
        }
        try await server?.shutdown()
    }

    func start() async throws {
        let server = try await TestServer.start(dataDirectory: directory, port: port, configure)
        current.withLock { $0 = server }
        started.withLock { $0.append(server) }
    }

    func token(_ user: String, grants: [String] = []) async throws -> String { try await server.token(user, grants: grants) }

    func client(_ user: String) async throws -> GreenroomClient { try await server.client(user) }

    /// A connected client of `user` with a local store in `folder`.
    func storeClient(_ user: String, folder: URL, grants: [String] = [], limits: LocalStoreLimits = LocalStoreLimits()) async throws -> GreenroomClient {
        try await server.client(user, grants: grants) { Self.offline(&$0, folder, limits) }
    }

    /// A client with a local store in `folder` that has not connected.
    func unconnectedStoreClient(folder: URL, limits: LocalStoreLimits = LocalStoreLimits()) -> GreenroomClient {
        var config = ClientConfiguration(serverURL: url)
        config.initialReconnectDelay = .milliseconds(50)
        config.maxReconnectDelay = .milliseconds(300)
        config.commandTimeout = .seconds(60)
        Self.offline(&config, folder, limits)
        let client = GreenroomClient(configuration: config)
        loose.withLock { $0.append(client) }
        return client
    }

    private static func offline(_ config: inout ClientConfiguration, _ folder: URL, _ limits: LocalStoreLimits) {
        config.localStore = folder
        config.localStoreLimits = limits
        config.maxReconnectDelay = .milliseconds(300)
    }

    /// A channel of `members` (the second member creates it and says hello), with that
    /// member's client.
    func channel(members: [String], id: ChannelId? = nil) async throws -> (ChannelId, GreenroomClient) {
        let owner = try await client(members[1])
        for member in members where member != members[1] { _ = try await client(member) }
        let channel = try await owner.createChannel(id: id, name: "offline", members: members.filter { $0 != members[1] })
        if id == nil { try await owner.channelController(for: channel.id).sendMessage(text: "hello") }
        return (channel.id, owner)
    }

    /// The texts of a channel's messages as the server has them, oldest first.
    func serverTexts(of channel: ChannelId) async throws -> [String] {
        let (status, body) = try await server.rest("GET", "/v1/channels/\(channel.rawValue)/messages?limit=100")
        #expect(status == 200, "\(body)")
        return (body["items"]?.arrayValue ?? body.arrayValue ?? []).compactMap { $0["text"]?.stringValue }.filter { $0 != "hello" }
    }

    func shutdown() async {
        for server in started.withLock({ $0 }) { await server.disconnectClients() }
        for client in loose.withLock({ $0 }) { await client.disconnect() }
        try? await stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Runs `body` with a server it may stop and start, shut down at the end.
func withRestartableServer(_ configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
                           _ body: (RestartableNode) async throws -> Void) async throws {
    try await HeavyTests.shared {
        let node = try await RestartableNode(configure)
        do {
            try await body(node)
            await node.shutdown()
        } catch {
            await node.shutdown()
            throw error
        }
    }
}

/// The outcomes completion handlers received.
final class Outcomes: Sendable {
    private let results = Locked<[Result<ChatMessage, any Error>]>([])

    @MainActor func add(_ result: Result<ChatMessage, any Error>) { results.withLock { $0.append(result) } }
    var count: Int { results.withLock { $0.count } }
    var failures: [GreenroomError] {
        results.withLock { $0.compactMap { if case .failure(let error) = $0 { error as? GreenroomError ?? GreenroomError(.internalError, "\(error)") } else { nil } } }
    }
}

/// Every message list a controller's delegate was handed.
@MainActor
final class MessageRecorder: ChatChannelControllerDelegate {
    private var snapshots: [[ChatMessage]] = []

    func channelController(_ controller: ChatChannelController, didUpdateMessages messages: [ChatMessage]) {
        snapshots.append(messages)
    }

    /// The local states the message with `text` showed, in order, without repeats.
    func states(of text: String) -> [LocalMessageState?] {
        var seen: [LocalMessageState?] = []
        for snapshot in snapshots {
            guard let message = snapshot.first(where: { $0.text == text }) else { continue }
            if seen.last != .some(message.localState) { seen.append(message.localState) }
        }
        return seen
    }
}
