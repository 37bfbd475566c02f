import Foundation
import GreenroomServer
import Testing

/// What only the embedded storage does: its write-ahead log is copied back into the file
/// by the checkpointer, not by the committing writer.
@Suite("SQLite storage", .timeLimit(.minutes(2)))
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
}
