import Foundation
@testable import GreenroomServer
import Logging
import PostgresNIO
import Testing

/// Where the tests find the services they need, from environment variables.
///
/// PostgreSQL tests use the server `GREENROOM_TEST_POSTGRES_URL` names, or else one of their
/// own (``PrivatePostgres``) when PostgreSQL is installed; without either they skip and say
/// why (see ``Skips``). With `GREENROOM_REQUIRE_ALL=1` (as CI sets) a skip is a failure.
enum TestEnvironment {
    static var requireAll: Bool { ProcessInfo.processInfo.environment["GREENROOM_REQUIRE_ALL"] == "1" }

    static var postgresAdminURL: String? {
        get async {
            if let named = ProcessInfo.processInfo.environment["GREENROOM_TEST_POSTGRES_URL"], !named.isEmpty { return named }
            return try? await PrivatePostgres.started.value.get()
        }
    }

    /// The admin URL, or `nil` after reporting the skip (a failure under REQUIRE_ALL).
    static func postgres(for what: String) async -> String? {
        if let url = await postgresAdminURL { return url }
        var why = ""
        if case .failure(let failure) = await PrivatePostgres.started.value { why = failure.description }
        Skips.skip(what, because: "no PostgreSQL: \(why); or set GREENROOM_TEST_POSTGRES_URL=postgres://user@127.0.0.1:5432/postgres")
        return nil
    }

    /// ffmpeg and ffprobe from `GREENROOM_TEST_FFMPEG` and `GREENROOM_TEST_FFPROBE`, or found
    /// on `PATH`; `nil` after reporting the skip (a failure under REQUIRE_ALL).
    static func ffmpeg(for what: String) -> (ffmpeg: String, ffprobe: String)? {
        if let ffmpeg = program("GREENROOM_TEST_FFMPEG", "ffmpeg"), let ffprobe = program("GREENROOM_TEST_FFPROBE", "ffprobe") {
            return (ffmpeg, ffprobe)
        }
        Skips.skip(what, because: "ffmpeg and ffprobe are not on PATH (Debian: apt-get install ffmpeg), nor in GREENROOM_TEST_FFMPEG / GREENROOM_TEST_FFPROBE")
        return nil
    }

    /// The program named by `variable`, or `name` found on `PATH`.
    static func program(_ variable: String, _ name: String) -> String? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[variable], !path.isEmpty { return path }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Makes an empty database on the server at `adminURL`; returns its URL.
    static func freshPostgresDatabase(adminURL: String) async throws -> String {
        let name = "gr_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
        try await withAdminConnection(adminURL) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        }
        var components = URLComponents(string: adminURL)!
        components.path = "/\(name)"
        return components.string!
    }

    /// Drops a database made by ``freshPostgresDatabase(adminURL:)`` (best effort).
    static func dropPostgresDatabase(_ url: String, adminURL: String) async {
        guard let name = URLComponents(string: url)?.path.dropFirst(), name.hasPrefix("gr_test_") else { return }
        try? await withAdminConnection(adminURL) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        }
    }

    static let logger = Logger(label: "greenroom.test.postgres")

    static func withAdminConnection(_ url: String, _ body: (PostgresConnection) async throws -> Void) async throws {
        guard let components = URLComponents(string: url), let host = components.host else { throw TestTimeout(what: "bad URL \(url)") }
        let database = components.path.count > 1 ? String(components.path.dropFirst()) : "postgres"
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: database, tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 99, logger: logger)
        do {
            try await body(connection)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// The two storage backends every conformance test runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty database of this kind: `open` opens a storage on it (call it twice
    /// for two nodes), `cleanup` removes it. `nil` when PostgreSQL is not available.
    func freshDatabase() async throws -> FreshDatabase? {
        switch self {
        case .memory:
            let database = MemoryDatabase()
            return FreshDatabase(location: "memory", open: { MemoryStorage(database: database) }, cleanup: {})
        case .sqlite:
            let path = TestServer.makeDataDirectory() + "/greenroom.sqlite"
            return FreshDatabase(location: path, open: { try await SQLiteStorage.open(path: path) }, cleanup: {})
        case .postgres:
            guard let admin = await TestEnvironment.postgres(for: "the PostgreSQL backend") else { return nil }
            let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
            return FreshDatabase(
                location: url, open: { try await PostgresStorage.open(url: url) },
                cleanup: { await TestEnvironment.dropPostgresDatabase(url, adminURL: admin) })
        }
    }
}

struct FreshDatabase: Sendable {
    /// The SQLite file, the PostgreSQL URL, or `memory`.
    let location: String
    let open: @Sendable () async throws -> any GreenroomStorage
    let cleanup: @Sendable () async -> Void
}

/// Runs `body` with a migrated storage of `backend` (nothing when PostgreSQL is missing).
func withStorage(_ backend: Backend, migrate: Bool = true, _ body: (any GreenroomStorage, FreshDatabase) async throws -> Void) async throws {
    guard let database = try await backend.freshDatabase() else { return }
    let storage = try await database.open()
    do {
        if migrate { try await storage.migrate() }
        try await body(storage, database)
        try await storage.close()
        await database.cleanup()
    } catch {
        try? await storage.close()
        await database.cleanup()
        throw error
    }
}

extension Backend {
    /// Writes an event into a database at schema version 4, as the code of that version
    /// wrote it (its events table had no routing columns).
    func insertVersion4Event(_ storage: any GreenroomStorage, stream: String, seq: Int, data: RawJSON) async throws {
        let json = try data.jsonString()
        let at = Date().timeIntervalSince1970
        switch self {
        case .memory:
            // Memory has no earlier format to upgrade from: the event is stored as this
            // version stores it, with the audience its data names.
            var append = EventAppend(stream: stream, type: "t", data: data)
            append.audience = data["audience"]?.stringArrayValue.map(Set.init)
            _ = try await storage.appendEvents([append], retentionCount: 100)
        case .sqlite:
            let sqlite = try #require(storage as? SQLiteStorage)
            try await sqlite.write {
                _ = try sqlite.writer.query("INSERT OR IGNORE INTO streams (name, epoch, head, trimmed) VALUES (?, 'e0', 0, 0)", [.text(stream)])
                try sqlite.writer.query("INSERT INTO events (stream, seq, type, data, at) VALUES (?, ?, 't', ?, ?)",
                                        [.text(stream), .integer(seq), .text(json), .float(at)])
                try sqlite.writer.query("UPDATE streams SET head = ? WHERE name = ?", [.integer(seq), .text(stream)])
            }
        case .postgres:
            let postgres = try #require(storage as? PostgresStorage)
            try await postgres.fetch("INSERT INTO streams (name, epoch, head, trimmed) VALUES (\(stream), 'e0', 0, 0) ON CONFLICT DO NOTHING")
            try await postgres.fetch("INSERT INTO events (stream, seq, type, data, at) VALUES (\(stream), \(Int64(seq)), 't', \(json), \(at))")
            try await postgres.fetch("UPDATE streams SET head = \(Int64(seq)) WHERE name = \(stream)")
        }
    }
}
