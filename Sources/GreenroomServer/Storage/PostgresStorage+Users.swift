import Foundation
import GreenroomProtocol
import PostgresNIO

extension PostgresStorage {
    typealias UserRow = (String, String, String?, String, Double, Double)

    static func decodeUser(_ row: PostgresRow) throws -> User {
        let (id, nickname, url, extra, created, updated) = try row.decode(UserRow.self)
        return User(
            id: id, nickname: nickname, profileURL: url, extraData: try RawJSON(json: extra).dictionaryValue ?? [:],
            createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated))
    }

    /// Stores a new user. - Throws: `alreadyExists` when the id is taken.
    public func insertUser(_ user: User) async throws {
        let extra = try RawJSON.dictionary(user.extraData).jsonString()
        let rows = try await fetch(
            """
            INSERT INTO users (id, nickname, nickname_lower, profile_url, extra_data, created_at, updated_at)
            VALUES (\(user.id), \(user.nickname), \(user.nickname.lowercased()), \(user.profileURL), \(extra),
                    \(user.createdAt.timeIntervalSince1970), \(user.updatedAt.timeIntervalSince1970))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """)
        guard !rows.isEmpty else { throw GreenroomError(.alreadyExists, "a user with id \(user.id) exists already") }
    }

    /// Stores a user unless one with the id exists; returns the stored user either way.
    public func insertUserIfMissing(_ user: User) async throws -> User {
        if let existing = try await self.user(id: user.id) { return existing }
        do {
            try await insertUser(user)
            return user
        } catch let error as GreenroomError where error.is(.alreadyExists) {
            return try await self.user(id: user.id) ?? user
        }
    }

    /// The user with `id`, if any.
    public func user(id: String) async throws -> User? {
        let rows = try await fetch("SELECT id, nickname, profile_url, extra_data, created_at, updated_at FROM users WHERE id = \(id)")
        return try rows.first.map(Self.decodeUser)
    }

    /// Changes a user atomically (the row is locked while `change` runs).
    public func updateUser(id: String, _ change: @Sendable (inout User) throws -> Void) async throws -> User? {
        try await transaction { connection in
            let rows = try await connection.query(
                "SELECT id, nickname, profile_url, extra_data, created_at, updated_at FROM users WHERE id = \(id) FOR UPDATE",
                logger: self.logger).collect()
            guard let row = rows.first else { return nil }
            var user = try Self.decodeUser(row)
            try change(&user)
            user.id = id
            let extra = try RawJSON.dictionary(user.extraData).jsonString()
            try await connection.query(
                """
                UPDATE users SET nickname = \(user.nickname), nickname_lower = \(user.nickname.lowercased()),
                    profile_url = \(user.profileURL), extra_data = \(extra), updated_at = \(user.updatedAt.timeIntervalSince1970)
                WHERE id = \(id)
                """, logger: self.logger)
            return user
        }
    }

    /// Deletes a user; returns whether it existed.
    public func deleteUser(id: String) async throws -> Bool {
        let rows = try await fetch("DELETE FROM users WHERE id = \(id) RETURNING id")
        return !rows.isEmpty
    }

    /// Users ordered by id after `afterId`, matching the filters.
    public func listUsers(ids: [String]?, nicknamePrefix: String?, afterId: String?, limit: Int) async throws -> [User] {
        if let ids, ids.isEmpty { return [] }
        let prefix = nicknamePrefix?.lowercased() ?? ""
        let rows = try await fetch("""
            SELECT id, nickname, profile_url, extra_data, created_at, updated_at FROM users
            WHERE (\(afterId)::TEXT IS NULL OR (id COLLATE "C") > \(afterId))
              AND (\(ids)::TEXT[] IS NULL OR id = ANY(\(ids)))
              AND left(nickname_lower, \(prefix.count)::INT) = \(prefix)
            ORDER BY id COLLATE "C" LIMIT \(limit)
            """)
        return try rows.map(Self.decodeUser)
    }
}
