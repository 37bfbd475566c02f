import Foundation
@testable import GreenroomServer
import PostgresNIO
import Testing

extension DurabilityTests {
    @Test("a PostgreSQL database whose synchronous_commit is off gets it on for every connection of Greenroom's pool; settings that wait for the disk are kept")
    func postgresSynchronousCommit() async throws {
        guard let admin = await TestEnvironment.postgres(for: "PostgreSQL's commit settings") else { return }
        for (databaseDefault, expected) in [("off", "on"), ("remote_apply", "remote_apply"), ("local", "local"), ("on", "on")] {
            let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
            let name = String(try #require(URLComponents(string: url)?.path.dropFirst()))
            try await TestEnvironment.withAdminConnection(admin) { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) SET synchronous_commit = '\(databaseDefault)'"), logger: TestEnvironment.logger)
            }
            let settings = try await PostgresCommitSettings.read(try DatabaseURL(url), logger: TestEnvironment.logger)
            #expect(settings.synchronousCommit == databaseDefault, "a new connection gets the database's default")
            let storage = try await PostgresStorage.open(url: url)
            // Several queries at once, each holding its connection a moment: the pool opens several.
            let seen = try await withThrowingTaskGroup(of: (Int32, String).self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let row = try #require(try await storage.fetch("SELECT pg_backend_pid(), current_setting('synchronous_commit') FROM pg_sleep(0.2)").first)
                        return try row.decode((Int32, String).self)
                    }
                }
                return try await group.reduce(into: [(Int32, String)]()) { $0.append($1) }
            }
            #expect(Set(seen.map(\.0)).count >= 2, "the queries ran on more than one pooled connection")
            #expect(seen.allSatisfy { $0.1 == expected }, "database default \(databaseDefault): \(seen)")
            try await storage.migrate()
            try await storage.close()
            await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
        }
    }

    @Test("PostgreSQL that cannot be reached fails the storage's opening with a storage error naming where")
    func postgresUnreachable() async throws {
        // A port nothing listens on: bound, then closed.
        let port = try await WebhookReceiver.freePort()
        await #expect {
            _ = try await PostgresStorage.open(url: "postgres://postgres@127.0.0.1:\(port)/greenroom?sslmode=disable")
        } throws: { error in
            guard case GreenroomServerError.storage(let text) = error else { return false }
            return text.contains("127.0.0.1:\(port)")
        }
    }
}
