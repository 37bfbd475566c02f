import Foundation
import GreenroomServer
import Testing

/// What only the embedded storage does: its write-ahead log is copied back into the file
/// by the checkpointer, not by the committing writer.
@Suite("SQLite storage", .timeLimit(.minutes(15)))
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

    @Test("after close, reads and writes fail at once instead of waiting for the stopped threads")
    func afterClose() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-closed-\(UUID().uuidString)")
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
}
