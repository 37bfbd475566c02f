import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

extension PostgresStorage {
    package typealias UserRow = (String, String, String?, String, Double, Double)

    package static func decodeUser(_ row: PostgresRow) throws -> User {
        let (id, nickname, url, extra, created, updated) = try row.decode(UserRow.self)
        return User(
            id: id, nickname: nickname, profileURL: url, extraData: try RawJSON(json: extra).dictionaryValue ?? [:],
            createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated))
    }

    package static func userQuery(id: String, lock: Bool) -> PostgresQuery {
        var query: PostgresQuery = "SELECT id, nickname, profile_url, extra_data, created_at, updated_at FROM users WHERE id = \(id)"
        if lock { query.sql += " FOR UPDATE" }
        return query
    }

    package static func insertUserQuery(_ user: User) throws -> PostgresQuery {
        let extra = try RawJSON.dictionary(user.extraData).jsonString()
        return """
            INSERT INTO users (id, nickname, nickname_lower, profile_url, extra_data, created_at, updated_at)
            VALUES (\(user.id), \(user.nickname), \(user.nickname.lowercased()), \(user.profileURL), \(extra),
                    \(user.createdAt.timeIntervalSince1970), \(user.updatedAt.timeIntervalSince1970))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """
    }

    package static func saveUserQuery(_ user: User) throws -> PostgresQuery {
        let extra = try RawJSON.dictionary(user.extraData).jsonString()
        return """
            UPDATE users SET nickname = \(user.nickname), nickname_lower = \(user.nickname.lowercased()),
                profile_url = \(user.profileURL), extra_data = \(extra), updated_at = \(user.updatedAt.timeIntervalSince1970)
            WHERE id = \(user.id)
            """
    }

    /// The user with `id`, if any.
    public func user(id: String) async throws -> User? {
        try await fetch(Self.userQuery(id: id, lock: false)).first.map(Self.decodeUser)
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
