import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Logging
import Testing

/// The operator's road from one node to many: `greenroom migrate` and `greenroom backup`.
@Suite("Operating: migrating a store to PostgreSQL, backing up a running node", .wholeRun)
struct MaintenanceTests {
    static let logger = Logger(label: "greenroom.test.maintenance")

    @Test("a store with 3 channels × 1,000 messages, an app stream, a live event, a meeting's persisted pub/sub and a video moves to PostgreSQL; clients resume on two nodes with recovered: true, nothing missed or twice; a second migrate is refused")
    func migrate() async throws {
        guard let admin = await TestEnvironment.postgres(for: "the migration test"),
              let tools = TestEnvironment.ffmpeg(for: "the migration test") else { return }
        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        let directory = TestServer.makeDataDirectory()
        func media(_ config: inout ServerConfiguration) {
            config.ffmpegPath = tools.ffmpeg
            config.ffprobePath = tools.ffprobe
        }
        do {
            try await HeavyTests.shared {
                try await migrate(directory: directory, url: url, media: media)
            }
        } catch {
            await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
            throw error
        }
        await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
    }

    private func migrate(directory: String, url: String, media: (inout ServerConfiguration) -> Void) async throws {
        // One node on SQLite, with everything a store holds.
        let single = try await TestServer.start(dataDirectory: directory, media)
        let address = single.port
        let alice = try await single.client("alice", grants: ["app:scores", "publish:app:scores", "rate:writes=off"])
        // Bob stays connected through the move, reading every channel from its start.
        let bob = try await single.client("bob")
        let channels = (0..<3).map { ChannelId("c\($0)") }
        for channel in channels { _ = try await alice.createChannel(id: channel, members: ["bob"]) }
        var reading: [StreamSubscription] = []
        for channel in channels { reading.append(try await bob.subscribe(to: channel.stream, since: StreamPosition(offset: 0, epoch: nil))) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for channel in channels {
                for part in 0..<4 {
                    let controller = alice.channelController(for: channel)
                    group.addTask { for index in 0..<250 { _ = try await controller.sendMessage(text: "\(channel.rawValue)-\(part)-\(index)") } }
                }
            }
            try await group.waitForAll()
        }
        var before: [[StreamEvent]] = []
        for (channel, subscription) in zip(channels, reading) {
            let (events, _) = try await collect(subscription, "\(channel.rawValue)'s 1,000 messages") { events in
                events.filter { $0.type == ChatEventType.messageNew }.count >= 1_000
            }
            before.append(events)
        }
        // Carol reads the app stream, keeps her position and goes.
        for index in 0..<20 { try await alice.publish(to: "app:scores", type: "score", data: ["n": .number(Double(index))]) }
        let carol = try await single.client("carol", grants: ["app:scores"])
        let scores = try await carol.subscribe(to: "app:scores", since: StreamPosition(offset: 0, epoch: nil))
        let (seenScores, _) = try await collect(scores, count: 20)
        let stored = try #require(seenScores.last.map { StreamPosition(offset: $0.offset, epoch: $0.epoch) })
        await carol.disconnect()
        // A live event, a meeting's persisted messages and a processed video.
        let params = LiveEvent.CreateParams()
        params.title = "Launch"
        let live = try await alice.createLiveEvent(config: params)
        let (host, meeting, _) = try await single.joined("dana", meeting: "standup", as: "one", mode: .SEND_AND_RECV)
        for index in 0..<5 { try await meeting.pubsub.publish(topic: "notes", message: "n\(index)", options: ["persist": true]) }
        await host.disconnect()
        let file = try await VideoTests.makeVideo(try #require(TestEnvironment.ffmpeg(for: "the migration test")).ffmpeg)
        let original = try Data(contentsOf: file)
        let uploader = try await VideoTests().session(single, "erin")
        let video = try await uploader.upload(fileURL: file, title: "Pattern").result()
        try await eventually("the video is processed", timeout: .seconds(60)) { try await uploader.video(id: video.id).status == .ready }
        await uploader.client.disconnect()
        await alice.disconnect()
        try await single.shutdown()

        // The move.
        let lines = Locked<[String]>([])
        let report = try await StoreMigration.run(dataDirectory: directory, to: url, pageSize: 500, logger: Self.logger) { line in
            lines.withLock { $0.append(line) }
        }
        #expect(report.messages == 3_000 && report.counts["events"] ?? 0 > 3_020, "\(report.counts)")
        #expect(lines.value.last?.hasPrefix("verified") == true && lines.value.contains { $0.hasPrefix("events: ") }, "\(lines.value)")
        await #expect(throws: GreenroomServerError.self, "a second migrate into the same database is refused") {
            _ = try await StoreMigration.run(dataDirectory: directory, to: url, logger: Self.logger)
        }

        // Two nodes on the copy: the first where the single node was, so Bob's client
        // finds it again.
        let one = try await TestServer.start(dataDirectory: directory, port: address) { config in
            config.databaseURL = url
            media(&config)
        }
        let two = try await TestServer.start(dataDirectory: directory) { config in
            config.databaseURL = url
            media(&config)
        }
        let carolAgain = try await two.client("carol", grants: ["app:scores"])
        let resumed = try await carolAgain.subscribe(to: "app:scores", since: stored)
        #expect(resumed.recovered, "Carol's stored position is valid on the cluster")
        let writer = try await two.client("alice", grants: ["app:scores", "publish:app:scores"])
        for channel in channels { _ = try await writer.channelController(for: channel).sendMessage(text: "after the move") }
        for index in 20..<25 { try await writer.publish(to: "app:scores", type: "score", data: ["n": .number(Double(index))]) }

        for (number, subscription) in reading.enumerated() {
            let (after, recoveries) = try await collect(subscription, "the message after the move") { events in
                events.contains { $0.data["message"]?["text"]?.stringValue == "after the move" }
            }
            let all = before[number] + after
            #expect(all.map(\.offset) == Array(1...UInt64(all.count)), "channel \(number): every event once, in order")
            #expect(!recoveries.isEmpty && recoveries.allSatisfy { $0 }, "Bob resumed channel \(number): \(recoveries)")
            #expect(Set(all.compactMap { $0.data["message"]?["id"]?.stringValue }).count == 1_001)
        }
        let (afterScores, _) = try await collect(resumed, count: 5)
        #expect(afterScores.map(\.offset) == Array((stored.offset + 1)...(stored.offset + 5)))
        #expect(afterScores.map { $0.data["n"]?.doubleValue } == (20..<25).map { Double($0) })

        // What else the store held, read on the cluster.
        #expect(try await writer.getLiveEvent(id: live.liveEventId).title == "Launch")
        let (_, joinedAgain, _) = try await two.joined("dana", meeting: "standup", as: "two", mode: .SEND_AND_RECV)
        #expect(try await joinedAgain.pubsub.getMessagesForTopic("notes").map(\.message) == (0..<5).map { "n\($0)" })
        let watcher = try await VideoTests().session(one, "erin")
        #expect(try await watcher.video(id: video.id).status == .ready)
        #expect(try await watcher.download(videoID: video.id).data == original, "the file stayed in the data directory")

        // A restore to an earlier point: new epochs, and a stored position is not recovered.
        await one.disconnectClients()
        await two.disconnectClients()
        try await one.shutdown()
        try await two.shutdown()
        #expect(try await StoreBackup.renewEpochs(databaseURL: url, logger: Self.logger) > 3)
        let restored = try await TestServer.start(dataDirectory: directory) { $0.databaseURL = url }
        let late = try await restored.client("carol", grants: ["app:scores"])
        #expect(!(try await late.subscribe(to: "app:scores", since: stored).recovered))
        await restored.disconnectClients()
        try await restored.shutdown()
        await bob.disconnect()
    }
}

extension MaintenanceTests {
    @Test("a backup taken while 20 clients write holds every message acknowledged before it began; a node started on it gives streams new epochs, so a stored position resumes with recovered: false")
    func backupWhileWriting() async throws {
        try await HeavyTests.shared {
            let directory = TestServer.makeDataDirectory()
            let server = try await TestServer.start(dataDirectory: directory)
            let writers = (0..<20).map { "w\($0)" }
            var clients: [GreenroomClient] = []
            for writer in writers { clients.append(try await server.client(writer, grants: ["rate:writes=off"])) }
            let owner = try await server.client("owner")
            let room = ChannelId("room")
            _ = try await owner.createChannel(id: room, members: writers)
            let reading = try await owner.subscribe(to: room.stream, since: StreamPosition(offset: 0, epoch: nil))

            let writing = Locked(true)
            let acknowledged = Locked<[String]>([])
            let chatting = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, client) in clients.enumerated() {
                        let controller = client.channelController(for: room)
                        group.addTask {
                            var number = 0
                            while writing.value {
                                number += 1
                                _ = try await controller.sendMessage(text: "w\(index)-\(number)")
                                acknowledged.withLock { $0.append("w\(index)-\(number)") }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            try await eventually("the writers are under way") { acknowledged.value.count >= 200 }
            let before = Set(acknowledged.value)
            let backup = (TestServer.makeDataDirectory() as NSString).appendingPathComponent("backup.sqlite")
            let report = try await StoreBackup.run(dataDirectory: directory, to: backup)
            let during = acknowledged.value.count
            try await eventually("the writers go on after the backup") { acknowledged.value.count >= during + 100 }
            writing.withLock { $0 = false }
            try await chatting.value
            let all = Set(acknowledged.value)
            #expect(report.streams >= 1 && report.bytes > 0)
            #expect(!FileManager.default.fileExists(atPath: backup + ".partial") && !FileManager.default.fileExists(atPath: backup + "-wal"))
            let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
            #expect(mode == 0o600, "the backup is readable by its owner only")
            await #expect(throws: GreenroomServerError.self, "a backup does not overwrite a file") {
                _ = try await StoreBackup.run(dataDirectory: directory, to: backup)
            }
            // The owner's client saw every message; its position is past the backup.
            let (seen, _) = try await collect(reading, "every message") { events in
                events.filter { $0.type == ChatEventType.messageNew }.count >= all.count
            }
            let position = try #require(seen.last.map { StreamPosition(offset: $0.offset, epoch: $0.epoch) })
            await server.disconnectClients()
            try await server.shutdown()

            // The restore: a data directory with the backup as its database, and the secrets.
            let restoredDirectory = TestServer.makeDataDirectory()
            for secret in ["app-secret", "api-key"] {
                try FileManager.default.copyItem(atPath: (directory as NSString).appendingPathComponent(secret),
                                                 toPath: (restoredDirectory as NSString).appendingPathComponent(secret))
            }
            try FileManager.default.moveItem(atPath: backup, toPath: (restoredDirectory as NSString).appendingPathComponent("greenroom.sqlite"))
            let restored = try await TestServer.start(dataDirectory: restoredDirectory)
            let reader = try await restored.client("owner")
            let controller = reader.channelController(for: room)
            var texts: [String] = []
            var anchor: String?
            while true {
                let page = try await controller.loadPreviousMessages(before: anchor, limit: 100)
                texts += page.items.compactMap(\.text)
                guard let oldest = page.items.first?.id, page.items.count == 100 else { break }
                anchor = oldest
            }
            #expect(before.isSubset(of: Set(texts)), "\(before.subtracting(texts).count) messages acknowledged before the backup are missing")
            #expect(Set(texts).isSubset(of: all) && Set(texts).count == texts.count)
            // The restored node writes on until its log is longer than the one the owner
            // saw: the offsets of the owner's position now name other events, under the
            // epoch the backup gave the stream, so the position is not recovered.
            for number in 0..<(all.count - texts.count + 5) {
                _ = try await controller.sendMessage(text: "restored-\(number)")
            }
            let resumed = try await reader.subscribe(to: room.stream, since: position)
            #expect(!resumed.recovered, "a position from before the restore is not recovered on the restored node")
            await restored.disconnectClients()
            try await restored.shutdown()
        }
    }
}
