import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

/// `GREENROOM_DURABILITY`: whether a commit waits for the disk, and what a node does after
/// the machine went down with commits only the operating system had.
@Suite("Durability: disk or process", .wholeRun)
struct DurabilityTests {
    static func synchronous(_ storage: SQLiteStorage) async throws -> Int? {
        try await storage.writerThread.run { try storage.writer.query("PRAGMA synchronous").first?.column("synchronous")?.integer }
    }

    static func marker(_ directory: String) -> String {
        SQLiteStorage.unsyncedMarkerPath((directory as NSString).appendingPathComponent("greenroom.sqlite"))
    }

    @Test("disk syncs every commit and leaves no mark; process leaves commits to the operating system and marks the run with the machine's boot until a clean close; PostgreSQL takes disk only")
    func settings() async throws {
        let directory = TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = (directory as NSString).appendingPathComponent("db.sqlite")
        let marker = SQLiteStorage.unsyncedMarkerPath(path)

        let disk = try await SQLiteStorage.open(path: path)
        #expect(try await Self.synchronous(disk) == 2)  // FULL
        #expect(!FileManager.default.fileExists(atPath: marker))
        try await disk.close()

        let fast = try await SQLiteStorage.open(path: path, durability: .process)
        #expect(try await Self.synchronous(fast) == 1)  // NORMAL
        let boot = try #require(SQLiteStorage.bootIdentifier())
        #expect(try String(contentsOfFile: marker, encoding: .utf8) == boot)
        try await fast.migrate()
        _ = try await fast.appendEvents([EventAppend(stream: "app:kept", type: "t", data: ["n": 1])], retentionCount: 100)
        try await fast.close()
        #expect(!FileManager.default.fileExists(atPath: marker), "a clean close puts every commit on the disk and removes the mark")

        var config = ServerConfiguration()
        config.durability = .process
        #expect(throws: Never.self) { try config.validate() }
        config.databaseURL = "postgres://postgres@127.0.0.1:5432/greenroom"
        #expect(throws: GreenroomServerError.self) { try config.validate() }
        #expect(try ServerConfiguration.fromEnvironment(["GREENROOM_DURABILITY": "process"]).durability == .process)
        #expect(throws: GreenroomServerError.self) { try ServerConfiguration.fromEnvironment(["GREENROOM_DURABILITY": "sometimes"]) }
    }

    @Test("after the machine went down while a node ran with process, every stream has a new epoch and a client resuming from what it saw is told recovered: false, with history kept; after only the process stopped, epochs and resumption are kept")
    func machineCrash() async throws {
        let directory = TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let process: (inout ServerConfiguration) -> Void = { $0.durability = .process }
        let first = try await TestServer.start(dataDirectory: directory, process)
        for index in 1...3 { try await first.server.publish(stream: "app:log", data: ["n": .number(Double(index))]) }
        try await first.server.publish(stream: "app:other", data: ["n": 1])
        let client = try await first.client("alice", grants: ["app:log"])
        let subscription = try await client.subscribe(to: "app:log", since: StreamPosition(offset: 0, epoch: nil))
        let seen = try await collect(subscription, count: 3).events
        let epoch = try #require(seen.last?.epoch)
        let position = StreamPosition(offset: 3, epoch: epoch)
        // What the running node left: the mark of this boot. Kept to put back after the
        // clean shutdown removes it, as a process killed outright would have left it.
        let mark = try String(contentsOfFile: Self.marker(directory), encoding: .utf8)
        #expect(mark == SQLiteStorage.bootIdentifier())
        await client.disconnect()
        try await first.shutdown()
        #expect(!FileManager.default.fileExists(atPath: Self.marker(directory)))

        // Only the process stopped: the machine (the operating system's cache) kept every commit.
        try mark.write(toFile: Self.marker(directory), atomically: true, encoding: .utf8)
        let second = try await TestServer.start(dataDirectory: directory, process)
        let again = try await second.client("alice", grants: ["app:log"])
        let kept = try await again.subscribe(to: "app:log", since: position)
        #expect(kept.recovered)
        try await second.server.publish(stream: "app:log", data: ["n": 4])
        let fourth = try #require(try await collect(kept, count: 1).events.first)
        #expect(fourth.offset == 4 && fourth.epoch == epoch)
        await again.disconnect()
        try await second.shutdown()

        // The machine went down: the mark names another boot.
        try "another-boot".write(toFile: Self.marker(directory), atomically: true, encoding: .utf8)
        let third = try await TestServer.start(dataDirectory: directory, process)
        let resumed = try await third.client("alice", grants: ["app:log"])
        let renewed = try await resumed.subscribe(to: "app:log", since: StreamPosition(offset: 4, epoch: epoch))
        #expect(!renewed.recovered, "the epoch it resumed from may have lost events")
        try await third.server.publish(stream: "app:log", data: ["n": 5])
        let next = try #require(try await collect(renewed, count: 1).events.first)
        #expect(next.offset == 5 && next.epoch != epoch)
        // Every stream, not only the one followed, and the history stays readable.
        let (_, other) = try await third.rest("GET", "/v1/streams/app:other/events?after=0")
        let otherEvents = other.arrayValue ?? []
        #expect(otherEvents.count == 1 && otherEvents.first?["epoch"]?.stringValue != epoch)
        let (_, log) = try await third.rest("GET", "/v1/streams/app:log/events?after=0")
        #expect(log.arrayValue?.compactMap { $0["data"]?["n"]?.numberValue } == [1, 2, 3, 4, 5])
        #expect(try String(contentsOfFile: Self.marker(directory), encoding: .utf8) == SQLiteStorage.bootIdentifier())
        await resumed.disconnect()
        try await third.shutdown()

        // Run with disk after a process run the machine lost: renewed too, and no mark left.
        try "another-boot".write(toFile: Self.marker(directory), atomically: true, encoding: .utf8)
        let diskNode = try await TestServer.start(dataDirectory: directory)
        let (_, after) = try await diskNode.rest("GET", "/v1/streams/app:log/events?after=4")
        let fifth = try #require(after.arrayValue?.first)
        #expect(fifth["epoch"]?.stringValue != next.epoch)
        #expect(!FileManager.default.fileExists(atPath: Self.marker(directory)))
        try await diskNode.shutdown()
    }
}
