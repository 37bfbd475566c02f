import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import PostgresNIO
import Testing

/// A node killed with SIGKILL, or a database that fails a write batch, loses nothing acknowledged.
@Suite("Crash safety", .wholeRun)
struct CrashSafetyTests {
    /// Every message of a channel, oldest first, read page by page from the newest.
    func history(_ client: GreenroomClient, _ channel: ChannelId) async throws -> [ChatMessage] {
        var page = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channel, limit: 100))
        var all = page.items
        while let first = all.first, page.items.count == 100 {
            page = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channel, before: first.id, limit: 100))
            all = page.items + all
        }
        return all
    }

    @Test("SIGKILL while a client pipelines message.send: after each restart every acknowledged message is there once, where it was acknowledged (3 rounds)",
          arguments: [Backend.sqlite, .postgres])
    func killedWhileSending(_ backend: Backend) async throws {
        try await HeavyTests.shared { try await killAndRestart(backend) }
    }

    @Test("with --durability process (commits left to the operating system): SIGKILL loses nothing acknowledged either, and the restarted node keeps every stream's epoch (3 rounds)")
    func killedWhileSendingWithProcessDurability() async throws {
        try await HeavyTests.shared { try await killAndRestart(.sqlite, flags: ["--durability", "process"]) }
    }

    func killAndRestart(_ backend: Backend, flags: [String] = []) async throws {
        let directory = TestServer.makeDataDirectory()
        guard let (databaseFlags, dropDatabase) = try await Self.database(backend) else { return }
        let storage = databaseFlags + flags
        var epoch: String?
        let channel: ChannelId = "crash"
        var acknowledged: [ChatMessage] = []
        for round in 1...3 {
            let (server, base) = try await CLI.serve(["--port", "0", "--data-dir", directory] + storage)
            let token = try await CLI.run(["token", "alice", "--data-dir", directory, "--ttl", "600"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            var config = ClientConfiguration(serverURL: base)
            config.initialReconnectDelay = .milliseconds(50)
            config.maxReconnectDelay = .milliseconds(200)
            // Generous, for a loaded machine: sends still queued when the node dies are
            // ended by the disconnect that follows the kill, not by this.
            config.commandTimeout = .seconds(30)
            let client = GreenroomClient(configuration: config)
            try await client.connect(token: token)

            // What earlier rounds acknowledged survived their kill.
            let stored = round == 1 ? [] : try await history(client, channel)
            #expect(Set(stored.map(\.id)).count == stored.count, "a message is stored twice")
            let byId = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for message in acknowledged {
                #expect(byId[message.id]?.sequence == message.sequence && byId[message.id]?.text == message.text, "lost or moved: \(message.text)")
            }
            if round == 1 { _ = try await client.createChannel(id: channel, name: "Crash", members: []) }
            // A killed process loses nothing the operating system has: the epoch stays.
            let current = try await client.subscribe(to: "channel:crash").position?.epoch
            #expect(current != nil && (epoch == nil || current == epoch), "round \(round): epoch \(current ?? "none"), was \(epoch ?? "none")")
            epoch = epoch ?? current

            // 200 sends pipelined on one connection; the node dies once 60 are acknowledged.
            let room = client.channelController(for: channel)
            let acks = Locked<[ChatMessage]>([])
            let pid = server.process.pid
            await withTaskGroup(of: Void.self) { group in
                for index in 1...200 {
                    group.addTask {
                        guard let message = try? await room.sendMessage(text: "r\(round)-\(index)") else { return }
                        let count = acks.withLock { acks -> Int in
                            acks.append(message)
                            return acks.count
                        }
                        if count == 60 {
                            kill(pid, SIGKILL)
                            await client.disconnect()
                        }
                    }
                }
            }
            // Fewer than 60 acknowledged (recorded below): the node is killed all the same.
            if server.process.isRunning { kill(pid, SIGKILL) }
            try await server.waitForExit()
            #expect(server.process.exit == .signalled(SIGKILL))
            await client.disconnect()
            let round = acks.value
            #expect(round.count >= 60)
            acknowledged += round
        }
        // A last start reads everything the three rounds acknowledged.
        let (server, base) = try await CLI.serve(["--port", "0", "--data-dir", directory] + storage)
        let token = try await CLI.run(["token", "alice", "--data-dir", directory, "--ttl", "600"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let client = GreenroomClient(configuration: ClientConfiguration(serverURL: base))
        try await client.connect(token: token)
        let stored = try await history(client, channel)
        // Acknowledged or not, what was stored is one gapless sequence.
        let sequences: [Int64] = stored.map(\.sequence)
        let gapless: [Int64] = (0..<stored.count).map { Int64($0 + 1) }
        #expect(!stored.isEmpty && sequences == gapless)
        let storedIds = Set(stored.map(\.id))
        #expect(acknowledged.allSatisfy { storedIds.contains($0.id) })
        #expect(storedIds.count == stored.count)
        await client.disconnect()
        server.process.send(SIGTERM)
        try await server.waitForExit()
        await dropDatabase()
    }

    /// The `serve` flags of `backend`'s database (SQLite in the data directory: none), and
    /// what drops it at the end; `nil` when PostgreSQL is not available.
    static func database(_ backend: Backend) async throws -> ([String], @Sendable () async -> Void)? {
        guard backend == .postgres else { return ([], {}) }
        guard let admin = await TestEnvironment.postgres(for: "the PostgreSQL crash test") else { return nil }
        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        return (["--database", url], { await TestEnvironment.dropPostgresDatabase(url, adminURL: admin) })
    }
}

extension CrashSafetyTests {
    @Test("PostgreSQL serialization failures (40001) forced into write batches: each batch runs again and every message is stored once, in one gapless sequence; a batch that keeps failing is refused as unavailable and stores nothing")
    func serializationFailuresRetried() async throws {
        guard let admin = await TestEnvironment.postgres(for: "the forced serialization failure test") else { return }
        let database = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        defer { Task { await TestEnvironment.dropPostgresDatabase(database, adminURL: admin) } }
        try await withServer({ $0.databaseURL = database }) { server in
            // Three event inserts fail as a serialization failure would (fewer than a batch's
            // attempts, even should all three hit one batch). A sequence counts them: unlike
            // a table it is not rolled back with the failed transaction.
            try await TestEnvironment.withAdminConnection(database) { connection in
                for statement in [
                    "CREATE SEQUENCE forced_faults",
                    """
                    CREATE FUNCTION force_fault() RETURNS trigger AS $$
                    BEGIN
                        IF nextval('forced_faults') <= 3 OR current_setting('greenroom.always_fail', true) = 'on' THEN
                            RAISE EXCEPTION 'forced serialization failure' USING ERRCODE = '40001';
                        END IF;
                        RETURN NEW;
                    END $$ LANGUAGE plpgsql
                    """,
                    "CREATE TRIGGER force_fault BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION force_fault()",
                ] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: TestEnvironment.logger)
                }
            }
            let client = try await server.client("alice")
            let channel: ChannelId = "retried"
            _ = try await client.createChannel(id: channel, name: "Retried", members: [])
            let room = client.channelController(for: channel)
            let sent = try await withThrowingTaskGroup(of: ChatMessage.self) { group in
                for index in 1...40 { group.addTask { try await room.sendMessage(text: "m\(index)") } }
                return try await group.reduce(into: [ChatMessage]()) { $0.append($1) }
            }
            let stored = try await history(client, channel)
            #expect(sent.count == 40)
            #expect(Set(stored.map(\.id)) == Set(sent.map(\.id)))
            #expect(stored.map(\.sequence) == (1...40).map { Int64($0) })
            var faults: Int64 = 0
            try await TestEnvironment.withAdminConnection(database) { connection in
                for try await value in try await connection.query("SELECT last_value FROM forced_faults", logger: TestEnvironment.logger).decode(Int64.self) {
                    faults = value
                }
            }
            #expect(faults > 3, "the forced failures did not all happen (\(faults) inserts seen)")

            // Every attempt fails: the send is refused as unavailable (transient), stores
            // nothing, and the connection serves on.
            try await TestEnvironment.withAdminConnection(database) { connection in
                let name = String(database.split(separator: "/").last ?? "")
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) SET greenroom.always_fail = 'on'"), logger: TestEnvironment.logger)
            }
            // Pooled connections read the setting when they open: a fresh node sees it (started
            // here, inside this test's turn, rather than by a second withServer).
            let failing = try await TestServer.start { $0.databaseURL = database }
            let other = try await failing.client("alice")
            let error = await #expect(throws: GreenroomError.self) {
                _ = try await other.channelController(for: channel).sendMessage(text: "refused")
            }
            #expect(error?.errorCode == .unavailable && error?.isTransient == true, "\(String(describing: error))")
            #expect(other.connectionState == .connected)
            await failing.disconnectClients()
            try await failing.shutdown()
            let after = try await history(client, channel)
            #expect(after.count == 40 && !after.contains { $0.text == "refused" })
        }
    }
}
