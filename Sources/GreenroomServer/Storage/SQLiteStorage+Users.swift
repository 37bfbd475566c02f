import Foundation
import GreenroomProtocol

extension SQLiteStorage {
    static let userColumns = "id, nickname, profile_url, extra_data, created_at, updated_at"

    static func decodeUser(_ row: SQLRow) throws -> User {
        let extra = try RawJSON(json: try row.string("extra_data")).dictionaryValue ?? [:]
        return User(
            id: try row.string("id"), nickname: try row.string("nickname"), profileURL: row.optionalString("profile_url"),
            extraData: extra, createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"))
    }

    static func userBinds(_ user: User) throws -> [SQLValue] {
        [
            .text(user.id), .text(user.nickname), .text(user.nickname.lowercased()), .text(user.profileURL),
            .text(try RawJSON.dictionary(user.extraData).jsonString()), .date(user.createdAt), .date(user.updatedAt),
        ]
    }

    static let insertUserSQL = """
        INSERT INTO users (id, nickname, nickname_lower, profile_url, extra_data, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """

    /// Stores a new user. - Throws: `alreadyExists` when the id is taken.
    public func insertUser(_ user: User) async throws {
        try await write {
            let existing = try self.writer.query("SELECT id FROM users WHERE id = ?", [.text(user.id)])
            guard existing.isEmpty else { throw GreenroomError(.alreadyExists, "a user with id \(user.id) exists already") }
            try self.writer.query(Self.insertUserSQL, try Self.userBinds(user))
        }
    }

    /// Stores a user unless one with the id exists; returns the stored user either way.
    public func insertUserIfMissing(_ user: User) async throws -> User {
        if let existing = try await self.user(id: user.id) { return existing }
        return try await write {
            let rows = try self.writer.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [.text(user.id)])
            if let row = rows.first { return try Self.decodeUser(row) }
            try self.writer.query(Self.insertUserSQL, try Self.userBinds(user))
            return user
        }
    }

    /// The user with `id`, if any.
    public func user(id: String) async throws -> User? {
        let rows = try await read { try $0.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [.text(id)]) }
        return try rows.first.map(Self.decodeUser)
    }

    /// Changes a user atomically.
    public func updateUser(id: String, _ change: @Sendable (inout User) throws -> Void) async throws -> User? {
        try await write {
            let rows = try self.writer.query("SELECT \(Self.userColumns) FROM users WHERE id = ?", [.text(id)])
            guard let row = rows.first else { return nil }
            var user = try Self.decodeUser(row)
            try change(&user)
            user.id = id
            let binds = try Self.userBinds(user)
            try self.writer.query(
                """
                UPDATE users SET nickname = ?, nickname_lower = ?, profile_url = ?, extra_data = ?, updated_at = ?
                WHERE id = ?
                """, [binds[1], binds[2], binds[3], binds[4], binds[6], .text(id)])
            return user
        }
    }

    /// Deletes a user; returns whether it existed.
    public func deleteUser(id: String) async throws -> Bool {
        try await write {
            let rows = try self.writer.query("SELECT id FROM users WHERE id = ?", [.text(id)])
            guard !rows.isEmpty else { return false }
            try self.writer.query("DELETE FROM users WHERE id = ?", [.text(id)])
            return true
        }
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
