import Foundation
@testable import GreenroomServer
import Testing

/// What only the embedded storage does: its write-ahead log is copied back into the file
/// by the checkpointer, not by the committing writer.
@Suite("SQLite storage", .wholeRun)
struct SQLiteStorageTests {
    static func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }

    @Test("1,000 commits: the write-ahead log is checkpointed and restarts, so it stays small; every event is kept")
    func checkpoints() async throws {
        try await withStorage(.sqlite) { storage, database in
            let sqlite = try #require(storage as? SQLiteStorage)
            // Each commit writes a few pages; without checkpoints the log would hold them
            // all (1,000 commits of at least two 4 KB pages: 8 MB and more).
            var largest = 0
            for index in 1...1000 {
                _ = try await storage.appendEvents(
                    [EventAppend(stream: "app:wal", type: "t", data: ["n": .number(Double(index)), "pad": .string(String(repeating: "x", count: 200))])],
                    retentionCount: 100_000)
                largest = max(largest, Self.walSize(sqlite.path))
            }
            #expect(largest > 0)
            #expect(largest < 3_000_000, "the log grew to \(largest) bytes")
            let events = try await storage.readEvents(stream: "app:wal", after: 0, limit: 2000)
            #expect(events.count == 1000)
            #expect(events.map(\.offset) == Array(1...1000))
            _ = database
        }
    }

    @Test("version 9 moves the text records of version 8 out of the records into their own table: still found, edited and removed")
    func textEntriesMigration() async throws {
        let directory = TemporaryPaths.make("-texts")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try await SQLiteStorage.open(path: directory.appendingPathComponent("db.sqlite").path)
        try await storage.migrate(upTo: 8)
        // Version 8's text records were records, indexed by triggers.
        try await storage.write {
            for (id, words) in [("m1", "red apples"), ("m2", "green apples")] {
                try storage.writer.query("INSERT INTO records (kind, scope, id, sort, tag, data) VALUES ('text', 'channel-a', ?, 5, 'ann', ?)",
                                         [.text(id), .text(words)])
            }
        }
        try await storage.migrate()
        #expect(try await storage.schemaVersion() == 9)
        #expect(try await storage.searchTexts(TextSearch(terms: ["apples"])).map(\.id) == ["m2", "m1"])
        #expect(try await storage.countRecords(RecordQuery(kind: TextSearch.kind, scope: "channel-a")) == 2)
        let left = try await storage.read { try $0.query("SELECT count(*) AS n FROM records WHERE kind = 'text'") }
        #expect(left.first?.column("n")?.integer == 0)
        try await storage.transact(retentionCount: .max) { transaction in
            try await transaction.put(Record(kind: TextSearch.kind, scope: "channel-a", id: "m1", sort: 5, tag: "ann", data: "ripe pears"))
            _ = try await transaction.deleteRecord(kind: TextSearch.kind, scope: "channel-a", id: "m2")
        }
        #expect(try await storage.searchTexts(TextSearch(terms: ["apples"])).isEmpty)
        #expect(try await storage.searchTexts(TextSearch(terms: ["pears"])).map(\.tag) == ["ann"])
        try await storage.close()
    }

    @Test("after close, reads and writes fail at once instead of waiting for the stopped threads")
    func afterClose() async throws {
        let directory = TemporaryPaths.make("-closed")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try await SQLiteStorage.open(path: directory.appendingPathComponent("db.sqlite").path)
        try await storage.migrate()
        try await storage.insertUser(StorageConformanceTests.user("a", "Al"))
        try await storage.close()
        await #expect(throws: (any Error).self) { _ = try await storage.user(id: "a") }
        await #expect(throws: (any Error).self) { try await storage.insertUser(StorageConformanceTests.user("b", "Bea")) }
        // The file kept what was written before the close.
        let reopened = try await SQLiteStorage.open(path: directory.appendingPathComponent("db.sqlite").path)
        #expect(try await reopened.user(id: "a")?.nickname == "Al")
        try await reopened.close()
    }

    @Test("the writer's and the reader's threads carry their names, for top -H and a profile")
    func threadNames() async throws {
        try await withStorage(.sqlite, migrate: false) { storage, _ in
            let sqlite = try #require(storage as? SQLiteStorage)
            #expect(try await sqlite.writerThread.run { Self.currentThreadName() } == "sqlite-writer")
            #expect(try await sqlite.readerThread.run { Self.currentThreadName() } == "sqlite-reader")
        }
    }

    static func currentThreadName() -> String {
        #if os(Linux)
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
        return name.trimmingCharacters(in: .newlines)
        #else
        var buffer = [CChar](repeating: 0, count: 64)
        guard pthread_getname_np(pthread_self(), &buffer, buffer.count) == 0 else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #endif
    }
}
