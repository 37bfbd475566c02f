import Foundation
import GreenroomProtocol
import Logging
import SQLiteNIO

/// How much a client's local store keeps (``ClientConfiguration/localStore``).
public struct LocalStoreLimits: Sendable, Hashable {
    /// The newest messages kept per channel; older ones are dropped as new ones arrive.
    public var messagesPerChannel: Int = 100
    /// The channels kept with their messages, the most recently active first; the rest are
    /// dropped (a channel with queued actions is kept until they are done).
    public var channels: Int = 200

    /// The default limits: 100 messages in each of the 200 most recent channels.
    public init() {}

    /// Makes limits.
    public init(messagesPerChannel: Int, channels: Int) {
        self.messagesPerChannel = max(1, messagesPerChannel)
        self.channels = max(1, channels)
    }
}

/// A client's offline store: one SQLite file in the app's folder holding what the screens
/// show (the user, channels, their latest messages and read state), each followed stream's
/// position, and the actions queued while offline.
///
/// Every operation runs after the ones called before it (``serially(_:)``), so that a
/// transaction is one call and nothing interleaves with it.
final class LocalStore: Sendable {
    /// The store's file name in the folder.
    static let fileName = "greenroom-store.sqlite"

    let path: String
    let limits: LocalStoreLimits
    private let connection: SQLiteConnection
    private let gate = SerialGate()

    private init(path: String, limits: LocalStoreLimits, connection: SQLiteConnection) {
        self.path = path
        self.limits = limits
        self.connection = connection
    }

    deinit {
        // A client dropped without `logout()` leaves its store open: close the file (the
        // closing job holds the connection until it is done). Closing twice does nothing.
        _ = connection.close()
    }

    /// Opens (creating when new) the store in `folder`, protected at rest on Apple's
    /// mobile platforms.
    static func open(folder: URL, limits: LocalStoreLimits) async throws -> LocalStore {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent(fileName).path
        var logger = Logger(label: "greenroom.store")
        logger.logLevel = .error
        let connection = try await SQLiteConnection.open(storage: .file(path: path), logger: logger)
        let store = LocalStore(path: path, limits: limits, connection: connection)
        try await store.serially { db in
            _ = try await db.query("PRAGMA journal_mode=WAL")
            _ = try await db.query("PRAGMA synchronous=NORMAL")
            // What is deleted (a channel the user was removed from, a deleted message) is
            // overwritten, not left in free pages; `eraseDeleted()` empties the log too.
            _ = try await db.query("PRAGMA secure_delete=ON")
            // A second client on the same folder (the app's process replaced) waits its turn.
            _ = try await db.query("PRAGMA busy_timeout=5000")
            for statement in Self.schema { _ = try await db.query(statement) }
        }
        protect(path)
        return store
    }

    private static let schema = [
        """
        CREATE TABLE IF NOT EXISTS channels (id TEXT PRIMARY KEY, body TEXT NOT NULL, activity REAL NOT NULL,
            listed INTEGER NOT NULL DEFAULT 0, reads TEXT, unread INTEGER NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE IF NOT EXISTS messages (channel TEXT NOT NULL, id TEXT NOT NULL, sequence INTEGER NOT NULL,
            body TEXT NOT NULL, PRIMARY KEY (channel, id))
        """,
        "CREATE INDEX IF NOT EXISTS messages_by_sequence ON messages (channel, sequence)",
        "CREATE TABLE IF NOT EXISTS positions (stream TEXT PRIMARY KEY, offset INTEGER NOT NULL, epoch TEXT)",
        """
        CREATE TABLE IF NOT EXISTS actions (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, channel TEXT NOT NULL,
            message TEXT, args TEXT NOT NULL, state TEXT NOT NULL, error TEXT, created REAL NOT NULL)
        """,
        "CREATE TABLE IF NOT EXISTS documents (key TEXT PRIMARY KEY, body TEXT NOT NULL)",
    ]

    /// Sets the file protection attribute: readable only while the device is unlocked
    /// (after the first unlock, so that a reconnect in the background can write).
    private static func protect(_ path: String) {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try? FileManager.default.setAttributes([.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication], ofItemAtPath: file)
        }
        #endif
    }

    /// Runs `body` on the store's connection once every operation called before it has ended.
    ///
    /// It runs in a task of its own, which the caller's cancellation does not reach:
    /// sqlite-nio refuses work from a cancelled task, and a transaction begun and then
    /// refused its `ROLLBACK` would stay open on the connection.
    func serially<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        let (gate, connection) = (self.gate, self.connection)
        return try await Task {
            await gate.enter()
            do {
                let result = try await body(connection)
                await gate.leave()
                return result
            } catch {
                await gate.leave()
                throw error
            }
        }.value
    }

    /// Runs `body` in one transaction, after the operations called before it.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        try await serially { db in
            _ = try await db.query("BEGIN IMMEDIATE")
            do {
                let result = try await body(db)
                _ = try await db.query("COMMIT")
                return result
            } catch {
                _ = try? await db.query("ROLLBACK")
                throw error
            }
        }
    }

    /// Writes the write-ahead log into the file and truncates it, so that rows deleted
    /// before leave no bytes behind in either file (the file's free space is zeroed by
    /// `secure_delete`; the log would keep the pages as they were until it is reused).
    func eraseDeleted() async throws {
        try await serially { db in _ = try await db.query("PRAGMA wal_checkpoint(TRUNCATE)") }
    }

    /// Closes the file; nothing may use the store afterwards.
    func close() async {
        _ = try? await serially { db in try await db.close() }
    }

    /// Closes the store and removes its files.
    func destroy() async {
        await close()
        for file in [path, path + "-wal", path + "-shm"] { try? FileManager.default.removeItem(atPath: file) }
    }

    // MARK: Values

    /// A value as the JSON text a row keeps.
    static func text(_ value: some Encodable) throws -> SQLiteData {
        .text(String(decoding: try WireCoding.encode(value), as: UTF8.self))
    }

    /// Decodes the JSON text of `column`; `nil` when it is absent or does not decode.
    static func decode<T: Decodable>(_ type: T.Type, _ row: SQLiteRow, _ column: String) -> T? {
        guard let text = row.column(column)?.string else { return nil }
        return try? WireCoding.decode(type, from: Data(text.utf8))
    }

    // MARK: Documents

    /// The document key of the user the store belongs to.
    static let ownerKey = "owner"
    /// The document key of the connected user's profile.
    static let currentUserKey = "currentUser"

    /// A document kept whole under `key` (the store's owner, the user's profile, the
    /// first page of a list).
    func document<T: Decodable & Sendable>(_ key: String, as type: T.Type) async throws -> T? {
        try await serially { db in
            try await db.query("SELECT body FROM documents WHERE key = ?", [.text(key)]).first.flatMap { Self.decode(type, $0, "body") }
        }
    }

    /// Keeps a document under `key`, replacing the one there.
    func setDocument(_ key: String, _ value: some Encodable & Sendable) async throws {
        let encoded = try Self.text(value)
        try await serially { db in
            _ = try await db.query("INSERT INTO documents (key, body) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET body = excluded.body",
                                   [.text(key), encoded])
        }
    }

    /// The documents whose keys begin with `prefix`, by key; those that do not decode as
    /// `type` are left out.
    func documents<T: Decodable & Sendable>(prefix: String, as type: T.Type) async throws -> [T] {
        try await serially { db in
            try await db.query("SELECT body FROM documents WHERE substr(key, 1, ?) = ? ORDER BY key", [.integer(prefix.utf8.count), .text(prefix)])
                .compactMap { Self.decode(type, $0, "body") }
        }
    }

    /// Removes the document kept under `key`.
    func removeDocument(_ key: String) async throws {
        try await serially { db in _ = try await db.query("DELETE FROM documents WHERE key = ?", [.text(key)]) }
    }

    /// Empties every table: the store then belongs to another user.
    func clear() async throws {
        try await transaction { db in
            for table in ["channels", "messages", "positions", "actions", "documents"] {
                _ = try await db.query("DELETE FROM \(table)")
            }
        }
        try await eraseDeleted()
    }

    // MARK: Stream positions

    /// The position stored for `stream`.
    func position(of stream: String) async throws -> StreamPosition? {
        try await serially { db in try await Self.position(of: stream, db) }
    }

    /// The position stored for `stream`, read in the transaction `db` is in.
    static func position(of stream: String, _ db: SQLiteConnection) async throws -> StreamPosition? {
        guard let row = try await db.query("SELECT offset, epoch FROM positions WHERE stream = ?", [.text(stream)]).first,
              let offset = row.column("offset")?.integer, offset >= 0 else { return nil }
        return StreamPosition(offset: UInt64(offset), epoch: row.column("epoch")?.string)
    }

    /// Keeps `position` as `stream`'s, in the transaction `db` is in (or on its own).
    static func setPosition(_ position: StreamPosition, of stream: String, _ db: SQLiteConnection) async throws {
        _ = try await db.query("""
            INSERT INTO positions (stream, offset, epoch) VALUES (?, ?, ?)
            ON CONFLICT (stream) DO UPDATE SET offset = excluded.offset, epoch = excluded.epoch
            """, [.text(stream), .integer(Int(clamping: position.offset)), position.epoch.map { .text($0) } ?? .null])
    }

    /// Forgets `stream`'s position.
    static func removePosition(of stream: String, _ db: SQLiteConnection) async throws {
        _ = try await db.query("DELETE FROM positions WHERE stream = ?", [.text(stream)])
    }
}

/// Lets one task at a time through, in the order they asked.
private actor SerialGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func leave() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
