import Foundation
import GreenroomProtocol
import GreenroomStorage
import Logging

/// The embedded storage: one SQLite file in WAL mode, one writer connection (every write
/// is a transaction under one lock, so appends are ordered and grouped) and one reader,
/// each on a thread of its own.
public final class SQLiteStorage: GreenroomStorage {
    package let writer: SQLiteHandle
    package let reader: SQLiteHandle
    /// The connections' threads: SQLite calls block (a commit's fsync, a busy wait that can
    /// last seconds), so they must not run on the threads the rest of the process shares.
    package let writerThread: SQLiteThread
    package let readerThread: SQLiteThread
    /// Moves the write-ahead log into the database file off the writer's thread (see
    /// ``didCommit()``); it has a connection and a thread of its own.
    package let checkpointer: SQLiteCheckpointer
    package let writeLock = AsyncLock()
    /// The path of the database file.
    public let path: String
    /// Whether a commit waits for the disk.
    public let durability: Durability

    /// Opens (creating if needed) the database at `path`; with `durability` ``Durability/process``
    /// a commit does not wait for the disk (see ``Durability``).
    public static func open(path: String, durability: Durability = .disk,
                            logger: Logger = Logger(label: "greenroom.sqlite")) async throws -> SQLiteStorage {
        let writerThread = SQLiteThread(name: "sqlite-writer")
        let readerThread = SQLiteThread(name: "sqlite-reader")
        do {
            let (writer, reader) = try await writerThread.run {
                let writer = try SQLiteHandle(path: path)
                try writer.query("PRAGMA busy_timeout=5000")
                // WAL lets the reader read while the writer writes; FULL makes a commit
                // durable before it returns (grouped commits keep that affordable), NORMAL
                // leaves it to the operating system. The checkpointer, not the committing
                // writer, copies the log into the file.
                try writer.query("PRAGMA journal_mode=WAL")
                try writer.query(durability == .disk ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
                try writer.query("PRAGMA foreign_keys=ON")
                try writer.query("PRAGMA wal_autocheckpoint=0")
                // Each write of a grouped commit runs in a savepoint, whose undo copies of the
                // pages it changes are kept in memory instead of a temporary file (they only
                // serve a rollback inside the transaction; the log makes the commit durable).
                try writer.query("PRAGMA temp_store=MEMORY")
                try prepareDurability(durability, writer: writer, path: path, logger: logger)
                let reader = try SQLiteHandle(path: path)
                try reader.query("PRAGMA busy_timeout=5000")
                return (writer, reader)
            }
            let checkpointer = try await SQLiteCheckpointer.open(path: path, logger: logger)
            logger.debug("SQLite storage opened", metadata: ["path": "\(path)"])
            return SQLiteStorage(writer: writer, reader: reader, writerThread: writerThread, readerThread: readerThread,
                                 checkpointer: checkpointer, path: path, durability: durability)
        } catch {
            try? await writerThread.shutdown()
            try? await readerThread.shutdown()
            throw error
        }
    }

    private init(writer: SQLiteHandle, reader: SQLiteHandle, writerThread: SQLiteThread, readerThread: SQLiteThread,
                 checkpointer: SQLiteCheckpointer, path: String, durability: Durability) {
        self.writer = writer
        self.reader = reader
        self.writerThread = writerThread
        self.readerThread = readerThread
        self.checkpointer = checkpointer
        self.path = path
        self.durability = durability
    }

    /// Closes both connections.
    public func close() async throws {
        try await writeLock.withLock {
            try await self.checkpointer.close()
            try await self.readerThread.run { self.reader.close() }
            try await self.writerThread.run {
                Self.finishDurability(self.durability, writer: self.writer, path: self.path)
                self.writer.close()
            }
        }
        try await readerThread.shutdown()
        try await writerThread.shutdown()
    }

    /// The schema, one step per version; a database at version N runs the steps after N.
    package static let migrations: [[String]] = [
        // 1: users, streams and their event logs.
        [
            """
            CREATE TABLE users (id TEXT PRIMARY KEY, nickname TEXT NOT NULL, nickname_lower TEXT NOT NULL,
                profile_url TEXT, extra_data TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL)
            """,
            "CREATE TABLE streams (name TEXT PRIMARY KEY, epoch TEXT NOT NULL, head INTEGER NOT NULL, trimmed INTEGER NOT NULL)",
            """
            CREATE TABLE events (stream TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL,
                at REAL NOT NULL, idem_key TEXT, PRIMARY KEY (stream, seq)) WITHOUT ROWID
            """,
            "CREATE UNIQUE INDEX events_idem ON events(stream, idem_key) WHERE idem_key IS NOT NULL",
        ],
        // 2: indexes for nickname search and age retention.
        [
            "CREATE INDEX users_nickname ON users(nickname_lower)",
            "CREATE INDEX events_at ON events(at)",
        ],
        // 3: presence on streams.
        [
            """
            CREATE TABLE presence (stream TEXT NOT NULL, client_id TEXT NOT NULL, user_id TEXT NOT NULL, data TEXT NOT NULL,
                joined_at REAL NOT NULL, expires_at REAL NOT NULL, node TEXT NOT NULL, PRIMARY KEY (stream, client_id))
            """,
            "CREATE INDEX presence_expiry ON presence(expires_at)",
            "CREATE INDEX presence_node ON presence(node)",
        ],
        // 4: the records of capabilities (channels, members, messages, …).
        [
            """
            CREATE TABLE records (kind TEXT NOT NULL, scope TEXT NOT NULL, id TEXT NOT NULL, sort INTEGER NOT NULL,
                tag TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (kind, scope, id)) WITHOUT ROWID
            """,
            "CREATE INDEX records_sort ON records(kind, scope, sort, id)",
        ],
        // 5: an event's routing kept beside it (its audience, whose reading it revokes),
        // instead of read from its data; events stored before keep the audience their data named.
        [
            "ALTER TABLE events ADD COLUMN audience TEXT",
            "ALTER TABLE events ADD COLUMN revokes TEXT",
            """
            UPDATE events SET audience = COALESCE((SELECT group_concat(value, char(10)) FROM json_each(events.data, '$.audience')), '')
            WHERE json_type(data, '$.audience') = 'array'
            """,
        ],
        // 6: a user's presence entries, found when the user is deleted.
        [
            "CREATE INDEX presence_user ON presence(user_id)",
        ],
        // 7: deleted messages tagged, so that unread counts pass them by.
        [
            "UPDATE records SET tag = 'deleted' WHERE kind = 'message' AND json_extract(data, '$.message.deletedAt') IS NOT NULL",
        ],
        // 8: full-text search over the text records (TextSearch): an FTS5 index that keeps
        // no copy of the text, kept by triggers on the records in the writing transaction.
        // `text_rows` gives each indexed record the integer row id FTS5 needs.
        [
            "CREATE TABLE text_rows (n INTEGER PRIMARY KEY, scope TEXT NOT NULL, id TEXT NOT NULL, UNIQUE (scope, id))",
            "CREATE VIRTUAL TABLE texts USING fts5(text, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')",
            """
            CREATE TRIGGER records_text_insert AFTER INSERT ON records WHEN new.kind = '\(TextSearch.kind)' BEGIN
                INSERT INTO text_rows (scope, id) VALUES (new.scope, new.id);
                INSERT INTO texts (rowid, text) VALUES (last_insert_rowid(), new.data);
            END
            """,
            """
            CREATE TRIGGER records_text_update AFTER UPDATE OF data ON records WHEN new.kind = '\(TextSearch.kind)' BEGIN
                DELETE FROM texts WHERE rowid = (SELECT n FROM text_rows WHERE scope = new.scope AND id = new.id);
                INSERT INTO texts (rowid, text) SELECT n, new.data FROM text_rows WHERE scope = new.scope AND id = new.id;
            END
            """,
            """
            CREATE TRIGGER records_text_delete AFTER DELETE ON records WHEN old.kind = '\(TextSearch.kind)' BEGIN
                DELETE FROM texts WHERE rowid = (SELECT n FROM text_rows WHERE scope = old.scope AND id = old.id);
                DELETE FROM text_rows WHERE scope = old.scope AND id = old.id;
            END
            """,
        ],
        // 9: the text records leave `records` for `text_entries` (SQLiteStorage+Texts): one
        // row per indexed record holding its words, whose row id is its entry in `texts`, now
        // an FTS5 index of that table's `text` without per-row sizes (`columnsize=0`; BM25
        // reads the lengths from the words), written by the storage itself instead of by
        // triggers on a second record and a row id mapping.
        [
            """
            CREATE TABLE text_entries (n INTEGER PRIMARY KEY, scope TEXT NOT NULL, id TEXT NOT NULL, sort INTEGER NOT NULL,
                tag TEXT NOT NULL, text TEXT NOT NULL, UNIQUE (scope, id))
            """,
            """
            INSERT INTO text_entries (n, scope, id, sort, tag, text) SELECT t.n, t.scope, t.id, r.sort, r.tag, r.data FROM text_rows t
                JOIN records r ON r.kind = '\(TextSearch.kind)' AND r.scope = t.scope AND r.id = t.id
            """,
            "DROP TRIGGER records_text_insert",
            "DROP TRIGGER records_text_update",
            "DROP TRIGGER records_text_delete",
            "DELETE FROM records WHERE kind = '\(TextSearch.kind)'",
            "DROP TABLE text_rows",
            "DROP TABLE texts",
            """
            CREATE VIRTUAL TABLE texts USING fts5(text, content='text_entries', content_rowid='n', columnsize=0,
                tokenize='unicode61 remove_diacritics 2')
            """,
            "INSERT INTO texts (rowid, text) SELECT n, text FROM text_entries",
        ],
    ]

    /// The schema version this code writes.
    public var latestSchemaVersion: Int { Self.migrations.count }

    /// Runs the migration steps after the database's version up to `version`, all in one
    /// transaction.
    public func migrate(upTo version: Int) async throws {
        let target = min(max(version, 0), Self.migrations.count)
        // One immediate transaction: a second process migrating the same file waits for it.
        try await write {
            try self.writer.query("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            let rows = try self.writer.query("SELECT version FROM schema_version")
            var current = rows.first?.column("version")?.integer ?? 0
            if rows.isEmpty { try self.writer.query("INSERT INTO schema_version (version) VALUES (0)") }
            while current < target {
                for step in Self.migrations[current] { try self.writer.query(step) }
                current += 1
                try self.writer.query("UPDATE schema_version SET version = ?", [.integer(current)])
            }
        }
    }

    /// The schema version the database is at.
    public func schemaVersion() async throws -> Int {
        try await read { reader in
            let exists = try reader.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
            guard !exists.isEmpty else { return 0 }
            return try reader.query("SELECT version FROM schema_version").first?.column("version")?.integer ?? 0
        }
    }

    /// Runs `body` on the reader connection, on its thread.
    package func read<T: Sendable>(_ body: @Sendable (SQLiteHandle) throws -> T) async throws -> T {
        try await readerThread.run { try body(self.reader) }
    }

    /// Runs `body` in a write transaction under the write lock, on the writer's thread (so
    /// the transaction's statements are plain calls there, without a hand-off each).
    package func write<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await writeLock.withLock {
            try await self.writerThread.run {
                try self.writer.query("BEGIN IMMEDIATE")
                do {
                    let result = try await body()
                    try self.writer.query("COMMIT")
                    // Committed: a checkpoint that fails here must not fail the batch.
                    if self.checkpointer.didCommit() { _ = try? self.writer.query("PRAGMA wal_checkpoint(PASSIVE)") }
                    return result
                } catch {
                    _ = try? self.writer.query("ROLLBACK")
                    throw error
                }
            }
        }
    }
}

extension SQLRow {
    package func string(_ name: String) throws -> String {
        guard let value = column(name)?.string else { throw GreenroomServerError.storage("column \(name) is missing") }
        return value
    }

    package func optionalString(_ name: String) -> String? {
        guard let data = column(name), !data.isNull else { return nil }
        return data.string
    }

    package func date(_ name: String) throws -> Date {
        guard let value = column(name)?.double else { throw GreenroomServerError.storage("column \(name) is missing") }
        return Date(timeIntervalSince1970: value)
    }

    package func offset(_ name: String) throws -> UInt64 {
        guard let value = column(name)?.integer, value >= 0 else { throw GreenroomServerError.storage("column \(name) is missing") }
        return UInt64(value)
    }
}
