import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

/// Several Greenroom nodes on one PostgreSQL database.
@Suite("Many nodes on PostgreSQL", .wholeRun)
struct MultiNodeTests {
    /// Runs `body` with a fresh database and a data directory the nodes share (so they
    /// share the app secret and API key); nothing when PostgreSQL is not available.
    func withCluster(_ body: (String, String) async throws -> Void) async throws {
        guard let admin = await TestEnvironment.postgres(for: "the multi-node tests") else { return }
        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        let directory = TestServer.makeDataDirectory()
        do {
            try await body(url, directory)
        } catch {
            await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
            throw error
        }
        await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
    }

    func node(_ url: String, _ directory: String) async throws -> TestServer {
        try await TestServer.start(dataDirectory: directory) { $0.databaseURL = url }
    }

    @Test("clients on two nodes see each other's events, in order, whichever node writes")
    func eventsCrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice", grants: ["app:room"])
            let bob = try await two.client("bob", grants: ["app:room"])
            let onOne = try await alice.subscribe(to: "app:room")
            let onTwo = try await bob.subscribe(to: "app:room")
            for index in 1...40 {
                let target = index % 2 == 0 ? one : two
                let (status, _) = try await target.rest("POST", "/v1/streams/app:room/events", body: ["type": "say", "data": ["n": .number(Double(index))]])
                #expect(status == 201)
            }
            for subscription in [onOne, onTwo] {
                let (events, _) = try await collect(subscription, count: 40)
                #expect(events.map(\.offset) == Array(1...40))
                #expect(events.map { Int($0.data["n"]?.numberValue ?? 0) } == Array(1...40))
            }
            // A user's private stream and user data are shared too.
            let mine = try await bob.subscribe(to: StreamName.user("bob"))
            let (patched, _) = try await one.rest("PATCH", "/v1/users/bob", body: ["set": ["nickname": "Bobby"]])
            #expect(patched == 200)
            let (updates, _) = try await collect(mine, count: 1)
            #expect(updates.first?.data["nickname"]?.stringValue == "Bobby")
            #expect(try await alice.user(id: "bob").nickname == "Bobby")
            await alice.disconnect()
            await bob.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        }
    }

    @Test("4 writers on 2 nodes append to one stream: gapless, unique, and delivered in order on both")
    func concurrentWritersOnTwoNodes() async throws {
        try await withCluster { url, directory in
            let nodes = [try await node(url, directory), try await node(url, directory)]
            let watchers = [try await nodes[0].client("w0", grants: ["app:busy"]), try await nodes[1].client("w1", grants: ["app:busy"])]
            let subscriptions = [try await watchers[0].subscribe(to: "app:busy"), try await watchers[1].subscribe(to: "app:busy")]
            let offsets = try await withThrowingTaskGroup(of: [UInt64].self) { group in
                for writer in 0..<4 {
                    let target = nodes[writer % 2]
                    group.addTask {
                        var mine: [UInt64] = []
                        for index in 0..<60 {
                            mine.append(try await target.server.publish(stream: "app:busy", type: "w\(writer)", data: .number(Double(index))).offset)
                        }
                        return mine
                    }
                }
                var all: [UInt64] = []
                for try await part in group { all += part }
                return all
            }
            #expect(offsets.count == 240 && Set(offsets).count == 240)
            #expect(offsets.sorted() == Array(1...240))
            for subscription in subscriptions {
                let (events, _) = try await collect(subscription, count: 240)
                #expect(events.map(\.offset) == Array(1...240))
                // Each writer's own events stay in the order it wrote them.
                for writer in 0..<4 {
                    let values = events.filter { $0.type == "w\(writer)" }.compactMap(\.data.numberValue)
                    #expect(values == (0..<60).map(Double.init))
                }
            }
            for watcher in watchers { await watcher.disconnect() }
            for node in nodes { try await node.shutdown() }
        }
    }

    @Test("a node whose LISTEN connection drops catches up from the log")
    func listenerCatchUp() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let reader = try await two.client("reader", grants: ["app:gap"])
            let subscription = try await reader.subscribe(to: "app:gap")
            try await one.server.publish(stream: "app:gap", data: 1)
            _ = try await collect(subscription, count: 1)
            try await cutListeners(url)
            for index in 2...30 { try await one.server.publish(stream: "app:gap", data: .number(Double(index))) }
            let (events, _) = try await collect(subscription, count: 29)
            #expect(events.map(\.offset) == Array(2...30))
            await reader.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        }
    }

    @Test("a subscriber that has had no live event yet gets the one event sent while its node's listener was away, read from the log")
    func listenerAwayBeforeFirstEvent() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            try await one.server.publish(stream: "app:quiet", data: 1)
            let reader = try await two.client("reader", grants: ["app:quiet"])
            let subscription = try await reader.subscribe(to: "app:quiet")
            // Its listener reconnects after 200 ms at the earliest: the one event's
            // notification is lost, and nothing after it would reveal a gap.
            try await cutListeners(url)
            let sent = try await one.server.publish(stream: "app:quiet", data: 2)
            let (events, _) = try await collect(subscription, count: 1, timeout: .seconds(30))
            #expect(events.map(\.offset) == [sent.offset])
            await reader.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        }
    }

    @Test("the relay forgets the streams nobody on its node follows any more: 1,200 streams followed one after another leave fewer than 1,024 positions")
    func relayForgetsUnfollowedStreams() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let relay = try #require(one.server.core.broker as? PostgresEventRelay)
            let reader = try await one.client("reader", grants: ["app:*"])
            for index in 0..<1_200 {
                let subscription = try await reader.subscribe(to: "app:s\(index)")
                try await subscription.unsubscribe()
            }
            let kept = try await reader.subscribe(to: "app:kept")
            #expect(relay.trackedStreams < 1_024, "\(relay.trackedStreams) positions kept")
            // The stream still followed keeps its position: its next event arrives.
            try await one.server.publish(stream: "app:kept", data: 1)
            #expect(try await collect(kept, count: 1).events.count == 1)
            await reader.disconnect()
            try await one.shutdown()
        }
    }

    /// Ends every node's LISTEN connection to the database of `url`; notifications sent
    /// before a node's listener connects again are lost to it.
    func cutListeners(_ url: String) async throws {
        let admin = try #require(await TestEnvironment.postgresAdminURL)
        let name = String(URLComponents(string: url)!.path.dropFirst())
        try await TestEnvironment.withAdminConnection(admin) { connection in
            try await connection.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = \(name) AND query ILIKE 'LISTEN%'",
                logger: TestEnvironment.logger)
        }
    }

    /// Waits until `nodes` nodes LISTEN on the database of `url`: a node's server is
    /// started before its listener has connected, and until then it learns of the other
    /// nodes' events only by catching up from the log.
    func waitForListeners(_ url: String, nodes: Int) async throws {
        let admin = try #require(await TestEnvironment.postgresAdminURL)
        let name = String(URLComponents(string: url)!.path.dropFirst())
        try await eventually("\(nodes) nodes listen") {
            var listening = 0
            try await TestEnvironment.withAdminConnection(admin) { connection in
                let rows = try await connection.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = \(name) AND query ILIKE 'LISTEN%'",
                    logger: TestEnvironment.logger)
                for try await count in rows.decode(Int64.self) { listening = Int(count) }
            }
            return listening >= nodes
        }
    }

    @Test("presence across nodes: joins are seen everywhere; a killed node's entries expire and everyone is told")
    func presenceAcrossNodes() async throws {
        try await withCluster { url, directory in
            let two = try await TestServer.start(dataDirectory: directory) {
                $0.databaseURL = url
                $0.presenceTTL = 2
            }
            let (first, base) = try await CLI.serve(["--port", "0", "--data-dir", directory, "--database", url], environment: ["GREENROOM_PRESENCE_TTL_SECONDS": "2"])
            let watcher = try await two.client("watcher", grants: ["app:lobby"])
            let lobby = try await watcher.subscribe(to: "app:lobby")
            let doomed = GreenroomClient(serverURL: base)
            try await doomed.connect(token: try await two.token("doomed", grants: ["app:lobby"]))
            let joined: PresenceEntry = try await doomed.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:lobby", data: ["seat": 3]))
            #expect(joined.userId == "doomed")
            let (first1, _) = try await collect(lobby, count: 1)
            #expect(first1.first?.type == "presence.joined")
            #expect(first1.first?.data["data"]?["seat"] == 3)
            let present: [PresenceEntry] = try await watcher.send(StreamOperation.presenceList, args: PresenceListArgs(stream: "app:lobby"))
            #expect(present.map(\.userId) == ["doomed"])

            first.process.send(SIGKILL)
            let killedAt = Date()
            let (left, _) = try await collect(lobby, count: 1, timeout: .seconds(30))
            #expect(left.first?.type == "presence.left")
            #expect(left.first?.data["reason"]?.stringValue == "expired")
            #expect(left.first?.data["clientId"]?.stringValue == joined.clientId)
            #expect(Date().timeIntervalSince(killedAt) < 15)
            let after: [PresenceEntry] = try await watcher.send(StreamOperation.presenceList, args: PresenceListArgs(stream: "app:lobby"))
            #expect(after.isEmpty)
            await doomed.disconnect()
            await watcher.disconnect()
            try await two.shutdown()
        }
    }

    @Test("node 1 killed: its clients reconnect to node 2 and resume with nothing lost")
    func nodeKilled() async throws {
        try await withCluster { url, directory in
            let two = try await node(url, directory)
            let (first, base) = try await CLI.serve(["--port", "0", "--data-dir", directory, "--database", url])
            var config = ClientConfiguration(serverURL: base)
            config.alternateServerURLs = [two.url]
            config.initialReconnectDelay = .milliseconds(50)
            config.maxReconnectDelay = .milliseconds(300)
            let client = GreenroomClient(configuration: config)
            try await client.connect(token: try await two.token("alice", grants: ["app:live"]))
            let subscription = try await client.subscribe(to: "app:live")
            let publisher = Task {
                for index in 1...300 {
                    try await two.server.publish(stream: "app:live", data: .number(Double(index)))
                    if index == 100 { first.process.send(SIGKILL) }
                }
            }
            let (events, recoveries) = try await collect(subscription, count: 300, timeout: .seconds(60))
            try await publisher.value
            #expect(events.map(\.offset) == Array(1...300))
            #expect(recoveries == [true])
            try await first.waitForExit()
            #expect(first.process.exit == .signalled(SIGKILL))
            #expect(two.server.connectionCount == 1)
            await client.disconnect()
            try await two.shutdown()
        }
    }
}
