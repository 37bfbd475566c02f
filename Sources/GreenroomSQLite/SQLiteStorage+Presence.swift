import Foundation
import GreenroomProtocol
import GreenroomStorage

extension SQLiteStorage {
    package static let presenceColumns = "stream, client_id, user_id, data, joined_at, expires_at, node"

    package static func decodePresence(_ row: SQLRow) throws -> PresenceEntry {
        PresenceEntry(
            stream: try row.string("stream"), clientId: try row.string("client_id"), userId: try row.string("user_id"),
            data: try RawJSON(json: try row.string("data")), joinedAt: try row.date("joined_at"),
            expiresAt: try row.date("expires_at"), node: try row.string("node"))
    }

    // MARK: Statements, on either connection (the reader for committed data, the writer
    // inside a transaction)

    package static func presenceEntry(stream: String, clientId: String, on connection: SQLiteHandle) throws -> PresenceEntry? {
        try connection.query(
            "SELECT \(presenceColumns) FROM presence WHERE stream = ? AND client_id = ?", [.text(stream), .text(clientId)]
        ).first.map(decodePresence)
    }

    package static func presenceCount(stream: String, clientIdPrefix prefix: String, on connection: SQLiteHandle) throws -> Int {
        try connection.query(
            "SELECT COUNT(*) AS n FROM presence WHERE stream = ? AND substr(client_id, 1, ?) = ?",
            [.text(stream), .integer(prefix.utf8.count), .text(prefix)]
        ).first?.column("n")?.integer ?? 0
    }

    package static func presence(stream: String, on connection: SQLiteHandle) throws -> [PresenceEntry] {
        try connection.query(
            "SELECT \(presenceColumns) FROM presence WHERE stream = ? ORDER BY joined_at, client_id", [.text(stream)]
        ).map(decodePresence)
    }

    package static func presence(userId: String, on connection: SQLiteHandle) throws -> [PresenceEntry] {
        try connection.query(
            "SELECT \(presenceColumns) FROM presence WHERE user_id = ? ORDER BY stream, client_id", [.text(userId)]
        ).map(decodePresence)
    }

    package static func putPresence(_ entry: PresenceEntry, on connection: SQLiteHandle) throws -> Bool {
        let existing = try connection.query(
            "SELECT client_id FROM presence WHERE stream = ? AND client_id = ?", [.text(entry.stream), .text(entry.clientId)])
        // As PostgreSQL's upsert: a replaced entry keeps its user and join time (its place in
        // the list); its data, expiry and node change.
        try connection.query(
            """
            INSERT INTO presence (\(presenceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (stream, client_id) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at, node = excluded.node
            """,
            [.text(entry.stream), .text(entry.clientId), .text(entry.userId), .text(try entry.data.jsonString()),
             .date(entry.joinedAt), .date(entry.expiresAt), .text(entry.node)])
        return existing.isEmpty
    }

    package static func removePresence(stream: String, clientId: String, on connection: SQLiteHandle) throws -> PresenceEntry? {
        guard let entry = try presenceEntry(stream: stream, clientId: clientId, on: connection) else { return nil }
        try connection.query("DELETE FROM presence WHERE stream = ? AND client_id = ?", [.text(stream), .text(clientId)])
        return entry
    }

    // MARK: Committed presence

    /// One client's presence on a stream.
    public func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await read { try Self.presenceEntry(stream: stream, clientId: clientId, on: $0) }
    }

    /// How many entries of a stream have a client id starting with `prefix`.
    public func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int {
        try await read { try Self.presenceCount(stream: stream, clientIdPrefix: prefix, on: $0) }
    }

    /// Everyone present on a stream.
    public func presence(stream: String) async throws -> [PresenceEntry] {
        try await read { try Self.presence(stream: stream, on: $0) }
    }

    /// A page of a stream's entries by join time, then client id.
    public func presence(stream: String, after: PresencePosition?, limit: Int) async throws -> [PresenceEntry] {
        try await read { reader in
            guard let after else {
                return try reader.query("SELECT \(Self.presenceColumns) FROM presence WHERE stream = ? ORDER BY joined_at, client_id LIMIT ?",
                                        [.text(stream), .integer(limit)]).map(Self.decodePresence)
            }
            return try reader.query(
                """
                SELECT \(Self.presenceColumns) FROM presence WHERE stream = ? AND (joined_at > ? OR (joined_at = ? AND client_id > ?))
                ORDER BY joined_at, client_id LIMIT ?
                """,
                [.text(stream), .date(after.joinedAt), .date(after.joinedAt), .text(after.clientId), .integer(limit)]
            ).map(Self.decodePresence)
        }
    }

    /// Extends every entry of `node`.
    public func renewPresence(node: String, until: Date) async throws {
        try await write {
            _ = try self.writer.query("UPDATE presence SET expires_at = ? WHERE node = ?", [.date(until), .text(node)])
        }
    }

    /// The expired entries, soonest expired first.
    public func expiredPresence(before date: Date) async throws -> [PresenceEntry] {
        try await read { try $0.query(
            "SELECT \(Self.presenceColumns) FROM presence WHERE expires_at < ? ORDER BY expires_at", [.date(date)]
        ).map(Self.decodePresence) }
    }
}
