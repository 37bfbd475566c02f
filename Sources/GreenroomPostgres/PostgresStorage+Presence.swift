import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

extension PostgresStorage {
    package static func decodePresence(_ row: PostgresRow) throws -> PresenceEntry {
        let (stream, client, user, data, joined, expires, node) = try row.decode((String, String, String, String, Double, Double, String).self)
        return PresenceEntry(
            stream: stream, clientId: client, userId: user, data: try RawJSON(json: data),
            joinedAt: Date(timeIntervalSince1970: joined), expiresAt: Date(timeIntervalSince1970: expires), node: node)
    }


    // MARK: Statements, run on the pool (committed data) or a transaction's connection

    package static func presenceEntryQuery(stream: String, clientId: String) -> PostgresQuery {
        "SELECT stream, client_id, user_id, data, joined_at, expires_at, node FROM presence WHERE stream = \(stream) AND client_id = \(clientId)"
    }

    package static func presenceCountQuery(stream: String, clientIdPrefix prefix: String) -> PostgresQuery {
        "SELECT COUNT(*) FROM presence WHERE stream = \(stream) AND left(client_id, \(prefix.count)::INT) = \(prefix)"
    }

    package static func presenceQuery(stream: String) -> PostgresQuery {
        """
        SELECT stream, client_id, user_id, data, joined_at, expires_at, node FROM presence
        WHERE stream = \(stream) ORDER BY joined_at, client_id COLLATE "C"
        """
    }

    package static func presenceQuery(userId: String) -> PostgresQuery {
        """
        SELECT stream, client_id, user_id, data, joined_at, expires_at, node FROM presence
        WHERE user_id = \(userId) ORDER BY stream COLLATE "C", client_id COLLATE "C" FOR UPDATE
        """
    }

    package static func putPresenceQuery(_ entry: PresenceEntry) throws -> PostgresQuery {
        let data = try entry.data.jsonString()
        return """
            INSERT INTO presence (stream, client_id, user_id, data, joined_at, expires_at, node)
            VALUES (\(entry.stream), \(entry.clientId), \(entry.userId), \(data), \(entry.joinedAt.timeIntervalSince1970),
                    \(entry.expiresAt.timeIntervalSince1970), \(entry.node))
            ON CONFLICT (stream, client_id) DO UPDATE SET data = EXCLUDED.data, expires_at = EXCLUDED.expires_at, node = EXCLUDED.node
            RETURNING (xmax = 0)
            """
    }

    package static func removePresenceQuery(stream: String, clientId: String) -> PostgresQuery {
        """
        DELETE FROM presence WHERE stream = \(stream) AND client_id = \(clientId)
        RETURNING stream, client_id, user_id, data, joined_at, expires_at, node
        """
    }

    // MARK: Committed presence

    /// One client's presence on a stream.
    public func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await fetch(Self.presenceEntryQuery(stream: stream, clientId: clientId)).first.map(Self.decodePresence)
    }

    /// How many entries of a stream have a client id starting with `prefix`.
    public func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int {
        try await fetch(Self.presenceCountQuery(stream: stream, clientIdPrefix: prefix)).first?.decode(Int.self) ?? 0
    }

    /// Everyone present on a stream.
    public func presence(stream: String) async throws -> [PresenceEntry] {
        try await fetch(Self.presenceQuery(stream: stream)).map(Self.decodePresence)
    }

    /// A page of a stream's entries by join time, then client id.
    public func presence(stream: String, after: PresencePosition?, limit: Int) async throws -> [PresenceEntry] {
        let query: PostgresQuery
        if let after {
            let joined = after.joinedAt.timeIntervalSince1970
            query = """
                SELECT stream, client_id, user_id, data, joined_at, expires_at, node FROM presence
                WHERE stream = \(stream) AND (joined_at > \(joined) OR (joined_at = \(joined) AND client_id COLLATE "C" > \(after.clientId)))
                ORDER BY joined_at, client_id COLLATE "C" LIMIT \(limit)
                """
        } else {
            query = """
                SELECT stream, client_id, user_id, data, joined_at, expires_at, node FROM presence
                WHERE stream = \(stream) ORDER BY joined_at, client_id COLLATE "C" LIMIT \(limit)
                """
        }
        return try await fetch(query).map(Self.decodePresence)
    }

    /// Extends every entry of `node`.
    public func renewPresence(node: String, until: Date) async throws {
        try await fetch("UPDATE presence SET expires_at = \(until.timeIntervalSince1970) WHERE node = \(node)")
    }

    /// The expired entries, soonest expired first.
    public func expiredPresence(before date: Date) async throws -> [PresenceEntry] {
        try await fetch(
            """
            SELECT stream, client_id, user_id, data, joined_at, expires_at, node FROM presence
            WHERE expires_at < \(date.timeIntervalSince1970) ORDER BY expires_at
            """).map(Self.decodePresence)
    }
}
