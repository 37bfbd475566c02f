import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The rules for users, shared by REST (the app's backend) and the WebSocket (a user
/// acting on itself): validation, limits, and the `user.updated` / `user.deleted` events
/// on the user's private stream.
package struct UserService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    /// What the other capabilities remove of a deleted user.
    package var deletion = UserDeletionHooks()

    package func create(_ args: UserUpdateArgs) async throws -> User {
        guard let id = args.id else { throw GreenroomError(.invalidParameterValue, "id is required") }
        guard Limits.isValidId(id) else {
            throw GreenroomError(.invalidParameterValue, "id must be 1–128 characters of letters, digits and _-.@")
        }
        let now = Date()
        var user = User(id: id, nickname: args.nickname ?? id, profileURL: args.profileURL, extraData: args.extraData ?? [:], createdAt: now, updatedAt: now)
        try Self.validate(&user)
        let created = user
        guard try await events.transact({ try await $0.insertUser(created) }) else {
            throw GreenroomError(.alreadyExists, "a user with id \(id) exists already")
        }
        return user
    }

    package func get(_ id: String) async throws -> User {
        guard let user = try await storage.user(id: id) else { throw GreenroomError(.notFound, "no user with id \(id)") }
        return user
    }

    package func list(_ args: UserListArgs) async throws -> Page<User> {
        let limit = args.limit ?? Limits.defaultPageSize
        guard (1...Limits.maxPageSize).contains(limit) else {
            throw GreenroomError(.invalidParameterValue, "limit must be between 1 and \(Limits.maxPageSize)")
        }
        if let ids = args.ids, ids.count > Limits.maxPageSize {
            throw GreenroomError(.invalidParameterValue, "at most \(Limits.maxPageSize) ids at once")
        }
        let after = try args.cursor.map(Cursor.decode)
        let users = try await storage.listUsers(ids: args.ids, nicknamePrefix: args.nicknamePrefix, afterId: after, limit: limit + 1)
        let items = Array(users.prefix(limit))
        let next = users.count > limit ? items.last.map { Cursor.encode($0.id) } : nil
        return Page(items: items, next: next)
    }

    /// Replaces nickname, profile URL and extra data.
    package func update(_ id: String, _ args: UserUpdateArgs) async throws -> User {
        try await change(id) { user in
            if let nickname = args.nickname { user.nickname = nickname }
            user.profileURL = args.profileURL
            user.extraData = args.extraData ?? [:]
        }
    }

    /// Sets the fields in `set` (extra data key by key) and removes those in `unset`.
    package func partialUpdate(_ id: String, _ args: UserPartialUpdateArgs) async throws -> User {
        let unset = args.unset ?? []
        if let set = args.set?.extraData, let both = unset.first(where: { set[$0] != nil }) {
            throw GreenroomError(.invalidParameterValue, "\(both) is both set and unset")
        }
        if unset.contains("nickname") || unset.contains("id") {
            throw GreenroomError(.invalidParameterValue, "id and nickname cannot be unset")
        }
        return try await change(id) { user in
            if let nickname = args.set?.nickname { user.nickname = nickname }
            if let url = args.set?.profileURL { user.profileURL = url }
            for (key, value) in args.set?.extraData ?? [:] { user.extraData[key] = value }
            for name in unset {
                if name == "profileURL" { user.profileURL = nil } else { user.extraData[name] = nil }
            }
        }
    }

    /// Deletes a user in one transaction: its push devices, what every capability keeps of
    /// it (``UserDeletionHooks``: chat memberships, invitations and operator roles, its
    /// roster and presence entries, and with `eraseMessages` its chat messages), and every
    /// token issued to it until now, which every node refuses from then on and whose
    /// connections every node closes with 4101; `user.deleted` is announced on its stream.
    /// A token issued later makes the user anew.
    package func delete(_ id: String, eraseMessages: Bool = false) async throws {
        let hooks = deletion
        let after = try await events.transact { transaction -> [UserDeletionHooks.AfterCommit] in
            guard try await transaction.deleteUser(id: id) else { throw GreenroomError(.notFound, "no user with id \(id)") }
            for device in try await transaction.list(DeviceRecord.self, RecordQuery(kind: DeviceRecord.recordKind, scope: id, limit: 1_000)) {
                try await transaction.remove(DeviceOwnerRecord.self, id: device.device.id)
            }
            _ = try await transaction.deleteRecords(kind: DeviceRecord.recordKind, scope: id)
            let after = try await hooks.run(UserDeletion(userId: id, eraseMessages: eraseMessages), in: transaction)
            _ = try await transaction.append([EventAppend(stream: StreamName.user(id), type: "user.deleted", data: ["id": .string(id)])])
            try await TokenRevocation.revoke(id, in: transaction)
            return after
        }
        for work in after { work() }
    }

    /// Refuses every token issued to `id` until now, on every node: its connections are
    /// closed with 4101 and its earlier tokens are refused with `tokenRevoked`. A token
    /// issued afterwards works. - Returns: the instant tokens must be issued after.
    package func revokeTokens(_ id: String) async throws -> Date {
        try await events.transact { transaction in
            guard try await transaction.user(id: id) != nil else { throw GreenroomError(.notFound, "no user with id \(id)") }
            return try await TokenRevocation.revoke(id, in: transaction)
        }
    }

    /// Bans `id` from the app (``UserBans``): its connections close on every node with
    /// 4101 and its tokens are refused with `userBanned` while the ban holds. The ban
    /// outlives the user's deletion, so that deleting oneself does not lift it.
    package func ban(_ id: String, _ args: UserBanArgs) async throws -> UserBan {
        try await events.transact { transaction in
            guard try await transaction.user(id: id) != nil else { throw GreenroomError(.notFound, "no user with id \(id)") }
            return try await UserBans.ban(id, args, in: transaction)
        }
    }

    /// Lifts `id`'s app-wide ban. - Throws: `notFound` when none holds.
    package func unban(_ id: String) async throws {
        try await events.transact { transaction in try await UserBans.lift(id, in: transaction) }
    }

    /// `id`'s app-wide ban. - Throws: `notFound` when none holds.
    package func ban(of id: String) async throws -> UserBan {
        guard let ban = try await UserBans.ban(of: id, in: storage) else { throw GreenroomError(.notFound, "\(id) is not banned") }
        return ban
    }

    /// Changes a user and announces the result as `user.updated`, in one transaction.
    private func change(_ id: String, _ body: @escaping @Sendable (inout User) -> Void) async throws -> User {
        try await events.transact { transaction in
            guard var user = try await transaction.user(id: id) else { throw GreenroomError(.notFound, "no user with id \(id)") }
            body(&user)
            user.id = id
            user.updatedAt = Date()
            try Self.validate(&user)
            try await transaction.saveUser(user)
            _ = try await transaction.append([EventAppend(stream: StreamName.user(id), type: "user.updated", data: try RawJSON(encoding: user))])
            return user
        }
    }

    package static func validate(_ user: inout User) throws {
        user.nickname = user.nickname.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !user.nickname.isEmpty, user.nickname.count <= Limits.maxNicknameLength else {
            throw GreenroomError(.invalidParameterValue, "nickname must be 1–\(Limits.maxNicknameLength) characters")
        }
        if let url = user.profileURL {
            guard url.count <= 2048, URL(string: url) != nil else {
                throw GreenroomError(.invalidParameterValue, "profileURL is not a valid URL")
            }
        }
        if let error = Limits.checkExtraData(user.extraData) { throw error }
    }
}
