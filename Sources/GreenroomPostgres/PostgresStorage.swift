import Foundation
import GreenroomProtocol
import GreenroomStorage
import Logging
import NIOCore
import PostgresNIO

/// The distributed storage: PostgreSQL through a postgres-nio connection pool, for several
/// Greenroom nodes on one database.
///
/// Appends lock their streams' rows (in name order, so writers on different nodes never
/// deadlock), so offsets are gapless and unique across nodes. Each appended event is
/// announced with `NOTIFY greenroom_events` in the same transaction, delivered on commit.
public final class PostgresStorage: GreenroomStorage {
    /// The channel events are announced on.
    public static let notifyChannel = "greenroom_events"
    /// Payloads up to this size carry the whole event; larger ones only its position.
    package static let maxNotifyPayload = 7_000

    package let client: PostgresClient
    package let location: DatabaseURL
    package let logger: Logger
    private let runner: Task<Void, Never>
    /// The connection and thread the node's write batches run on.
    package let writer: PostgresWriter

    /// Connects to the database at `url` (`postgres://user:password@host:port/database`),
    /// reads how durable its commits are (``PostgresCommitSettings``: a database whose
    /// `synchronous_commit` is off gets it on for Greenroom's connections) and starts the
    /// connection pool.
    /// - Throws: ``GreenroomServerError/storage(_:)`` when the database cannot be reached.
    public static func open(url: String, logger: Logger = Logger(label: "greenroom.postgres")) async throws -> PostgresStorage {
        let location = try DatabaseURL(url)
        let settings = try await PostgresCommitSettings.read(location, logger: logger)
        settings.log(to: logger)
        var writerConfiguration = try location.connectionConfiguration()
        writerConfiguration.options.additionalStartupParameters = settings.startupParameters
        let storage = PostgresStorage(location: location, startupParameters: settings.startupParameters,
                                      writer: PostgresWriter(configuration: writerConfiguration, logger: logger), logger: logger)
        // Give the pool's run loop a moment to start before the first lease.
        try? await Task.sleep(for: .milliseconds(20))
        return storage
    }

    private init(location: DatabaseURL, startupParameters: [(String, String)], writer: PostgresWriter, logger: Logger) {
        self.location = location
        self.writer = writer
        self.logger = logger
        var configuration = location.clientConfiguration
        configuration.options.additionalStartupParameters = startupParameters
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.runner = Task { await client.run() }
    }

    /// Stops the connection pool and the writer's connection.
    public func close() async throws {
        runner.cancel()
        _ = await runner.value
        await writer.close()
    }

    // MARK: Schema

    /// The schema, one step per version (the same versions as SQLite's).
    package static let migrations: [[PostgresQuery]] = [
        [
            """
            CREATE TABLE users (id TEXT PRIMARY KEY, nickname TEXT NOT NULL, nickname_lower TEXT NOT NULL,
                profile_url TEXT, extra_data TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
                updated_at DOUBLE PRECISION NOT NULL)
            """,
            "CREATE TABLE streams (name TEXT PRIMARY KEY, epoch TEXT NOT NULL, head BIGINT NOT NULL, trimmed BIGINT NOT NULL)",
            """
            CREATE TABLE events (stream TEXT NOT NULL, seq BIGINT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
                at DOUBLE PRECISION NOT NULL, idem_key TEXT, PRIMARY KEY (stream, seq))
            """,
            "CREATE UNIQUE INDEX events_idem ON events(stream, idem_key) WHERE idem_key IS NOT NULL",
        ],
        [
            "CREATE INDEX users_nickname ON users(nickname_lower)",
            "CREATE INDEX events_at ON events(at)",
        ],
        [
            """
            CREATE TABLE presence (stream TEXT NOT NULL, client_id TEXT NOT NULL, user_id TEXT NOT NULL, data TEXT NOT NULL,
                joined_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL, node TEXT NOT NULL,
                PRIMARY KEY (stream, client_id))
            """,
            "CREATE INDEX presence_expiry ON presence(expires_at)",
            "CREATE INDEX presence_node ON presence(node)",
        ],
        [
            """
            CREATE TABLE records (kind TEXT COLLATE "C" NOT NULL, scope TEXT COLLATE "C" NOT NULL, id TEXT COLLATE "C" NOT NULL,
                sort BIGINT NOT NULL, tag TEXT COLLATE "C" NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, scope, id))
            """,
            "CREATE INDEX records_sort ON records(kind, scope, sort, id)",
        ],
        [
            "ALTER TABLE events ADD COLUMN audience TEXT",
            "ALTER TABLE events ADD COLUMN revokes TEXT",
            """
            UPDATE events SET audience = COALESCE((SELECT string_agg(x, E'\\n') FROM jsonb_array_elements_text(events.data::jsonb -> 'audience') AS x), '')
            WHERE jsonb_typeof(data::jsonb -> 'audience') = 'array'
            """,
        ],
        [
            "CREATE INDEX presence_user ON presence(user_id)",
        ],
        [
            "UPDATE records SET tag = 'deleted' WHERE kind = 'message' AND (data::jsonb -> 'message' ->> 'deletedAt') IS NOT NULL",
        ],
        // Full-text search over the text records (TextSearch), indexed as they are written.
        [
            "CREATE INDEX records_text ON records USING GIN (to_tsvector('simple', data)) WHERE kind = 'text'",
        ],
        // Nothing: SQLite's version 9 moves its text records to a table of their own; here
        // they stay records under the GIN index, and the versions stay the same numbers.
        [],
    ]

    /// The schema version this code writes.
    public var latestSchemaVersion: Int { Self.migrations.count }

    /// Migrates under an advisory lock, so nodes starting together run each step once.
    public func migrate(upTo version: Int) async throws {
        let target = min(max(version, 0), Self.migrations.count)
        try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7230001)", logger: self.logger)
            try await connection.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)", logger: self.logger)
            let rows = try await connection.query("SELECT version FROM schema_version", logger: self.logger).collect()
            var current = try rows.first?.decode(Int.self) ?? 0
            if rows.isEmpty { try await connection.query("INSERT INTO schema_version (version) VALUES (0)", logger: self.logger) }
            while current < target {
                for step in Self.migrations[current] { try await connection.query(step, logger: self.logger) }
                current += 1
                try await connection.query("UPDATE schema_version SET version = \(current)", logger: self.logger)
            }
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() async throws -> Int {
        let exists = try await fetch("SELECT to_regclass('schema_version') IS NOT NULL")
        guard try exists.first?.decode(Bool.self) == true else { return 0 }
        return try await fetch("SELECT version FROM schema_version").first?.decode(Int.self) ?? 0
    }

    /// Runs one query outside a transaction and collects its rows.
    @discardableResult
    package func fetch(_ query: PostgresQuery) async throws -> [PostgresRow] {
        do {
            return try await client.query(query, logger: logger).collect()
        } catch {
            throw storageError(error)
        }
    }

    /// Runs `body` in a transaction; the closure's own error is rethrown as it is (not
    /// wrapped in postgres-nio's transaction error).
    package func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await mappingErrors { try await client.withTransaction(logger: logger) { connection in try await body(connection) } }
    }

    /// Runs `body` in a transaction on the writer's connection (``PostgresWriter``), or on
    /// one of the pool's while another transaction has it.
    package func writeTransaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        guard writer.claim() else { return try await transaction(body) }
        defer { writer.release() }
        return try await mappingErrors { try await writer.transaction(body) }
    }

    private func mappingErrors<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError { throw storageError(closureError) }
            throw storageError(error)
        } catch {
            throw storageError(error)
        }
    }

    /// Maps a database failure to what the caller can act on; errors of the caller's own
    /// pass through.
    package func storageError(_ error: any Error) -> any Error {
        switch error {
        case let psql as PSQLError:
            logger.error("postgres: \(String(reflecting: psql))")
            return GreenroomError(.unavailable, "the database failed; try again")
        case let transaction as PostgresTransactionError:
            logger.error("postgres transaction: \(String(reflecting: transaction))")
            return GreenroomError(.unavailable, "the database failed; try again")
        default:
            return error
        }
    }
}

/// A parsed `postgres://user:password@host:port/database?sslmode=disable|prefer|require`.
package struct DatabaseURL: Sendable {
    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String?
    package var sslMode: String

    package init(_ url: String) throws {
        guard let components = URLComponents(string: url),
              components.scheme == "postgres" || components.scheme == "postgresql",
              let host = components.host, !host.isEmpty
        else {
            throw GreenroomServerError.invalidConfiguration("the database URL must look like postgres://user:password@host:port/database")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        self.host = host
        self.port = components.port ?? 5432
        self.username = components.user ?? "postgres"
        self.password = components.password
        self.database = database.isEmpty ? nil : database
        self.sslMode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
    }

    package var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "require", "verify-ca", "verify-full": .require(.makeClientConfiguration())
        default: .prefer(.makeClientConfiguration())
        }
        return PostgresClient.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }

    /// The configuration of a single connection (the event listener holds one of its own).
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS = switch sslMode {
        case "disable": .disable
        case "require", "verify-ca", "verify-full": .require(try .init(configuration: .makeClientConfiguration()))
        default: .prefer(try .init(configuration: .makeClientConfiguration()))
        }
        return PostgresConnection.Configuration(host: host, port: port, username: username, password: password, database: database, tls: tls)
    }
}
