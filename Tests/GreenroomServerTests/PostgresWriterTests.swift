import Foundation
@testable import GreenroomServer
import PostgresNIO
import Testing

/// The node's write connection on PostgreSQL (`PostgresWriter`): one connection of its own
/// for the writer's batches, connected again when it is cut.
@Suite("PostgreSQL's write connection", .wholeRun)
struct PostgresWriterTests {
    @Test("write batches share one connection of their own; cut, the next batch connects again and loses nothing")
    func writerConnection() async throws {
        try await withStorage(.postgres) { storage, _ in
            let postgres = try #require(storage as? PostgresStorage)
            _ = try await storage.appendEvents([EventAppend(stream: "app:w", type: "t", data: 1)], retentionCount: 100)
            let first = try await Self.writerBackends(postgres)
            #expect(first.count == 1, "one writer connection: \(first)")
            for index in 2...5 {
                _ = try await storage.appendEvents([EventAppend(stream: "app:w", type: "t", data: .number(Double(index)))], retentionCount: 100)
            }
            #expect(try await Self.writerBackends(postgres) == first, "the batches reused it")

            // Cut it, and write at once: whether or not the writer has seen the cut yet, the
            // batch runs on a new connection.
            let pid = try #require(first.first)
            try await postgres.fetch("SELECT pg_terminate_backend(\(pid))")
            let stored = try await storage.appendEvents([EventAppend(stream: "app:w", type: "t", data: 6)], retentionCount: 100)
            #expect(stored.map(\.event.offset) == [6])
            // The cut backend may linger a moment in pg_stat_activity.
            var second = try await Self.writerBackends(postgres)
            for _ in 0..<100 where second.contains(pid) {
                try await Task.sleep(for: .milliseconds(50))
                second = try await Self.writerBackends(postgres)
            }
            #expect(second.count == 1 && second != first, "a new writer connection: \(second) after \(first)")
            #expect(try await storage.readEvents(stream: "app:w", after: 0, limit: 10).map(\.offset) == Array(1...6).map(UInt64.init))
        }
    }

    /// The backends of this database's writer connection.
    private static func writerBackends(_ storage: PostgresStorage) async throws -> [Int32] {
        try await storage.fetch("""
            SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(PostgresWriter.applicationName) ORDER BY pid
            """).map { try $0.decode(Int32.self) }
    }
}
