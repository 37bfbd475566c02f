import Foundation
import GreenroomProtocol
import GreenroomStorage

extension SQLiteStorage {
    package static let userColumns = "id, nickname, profile_url, extra_data, created_at, updated_at"

    package static func decodeUser(_ row: SQLRow) throws -> User {
        let extra = try RawJSON(json: try row.string("extra_data")).dictionaryValue ?? [:]
        return User(
            id: try row.string("id"), nickname: try row.string("nickname"), profileURL: row.optionalString("profile_url"),
            extraData: extra, createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }

    package static func userBinds(_ user: User) throws -> [SQLValue] {
        [
            .text(user.id), .text(user.nickname), .text(user.nickname.lowercased()), .text(user.profileURL),
            .text(try RawJSON.dictionary(user.extraData).jsonString()), .date(user.createdAt), .date(user.updatedAt),
        ]
    }

    package static let insertUserSQL = """
        INSERT INTO users (id, nickname, nickname_lower, profile_url, extra_data, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    /// The user with `id`, if any.
    public func user(id: String) async throws -> User? {
        try await read { try Self.user(id: id, on: $0) }
    }

    package static func user(id: String, on connection: SQLiteHandle) throws -> User? {
        try connection.query("SELECT \(userColumns) FROM users WHERE id = ?", [.text(id)]).first.map(decodeUser)
    }

    package static func insertUser(_ user: User, on connection: SQLiteHandle) throws -> Bool {
        !(try connection.query(insertUserSQL + " ON CONFLICT (id) DO NOTHING RETURNING id", try userBinds(user))).isEmpty
    }

    package static func saveUser(_ user: User, on connection: SQLiteHandle) throws {
        let binds = try userBinds(user)
        try connection.query(
            """
            UPDATE users SET nickname = ?, nickname_lower = ?, profile_url = ?, extra_data = ?, updated_at = ?
            WHERE id = ?
            """, [binds[1], binds[2], binds[3], binds[4], binds[6], .text(user.id)])
    }

    package static func deleteUser(id: String, on connection: SQLiteHandle) throws -> Bool {
        !(try connection.query("DELETE FROM users WHERE id = ? RETURNING id", [.text(id)])).isEmpty
    }

    /// Users ordered by id after `afterId`, matching the filters.
    public func listUsers(ids: [String]?, nicknamePrefix: String?, afterId: String?, limit: Int) async throws -> [User] {
        var clauses: [String] = []
        var binds: [SQLValue] = []
        if let afterId {
            clauses.append("id > ?")
            binds.append(.text(afterId))
        }
        if let ids {
            if ids.isEmpty { return [] }
            clauses.append("id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))")
            binds.append(contentsOf: ids.map { .text($0) })
        }
        if let prefix = nicknamePrefix?.lowercased(), !prefix.isEmpty {
            clauses.append("substr(nickname_lower, 1, ?) = ?")
            binds.append(.integer(prefix.count))
            binds.append(.text(prefix))
        }
        let whereClause = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        binds.append(.integer(limit))
        let rows = try await read { [binds] in try $0.query(
            "SELECT \(Self.userColumns) FROM users \(whereClause) ORDER BY id LIMIT ?", binds) }
        return try rows.map(Self.decodeUser)
    }
}
