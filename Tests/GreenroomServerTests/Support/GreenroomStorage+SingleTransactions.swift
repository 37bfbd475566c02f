import Foundation
@testable import GreenroomServer
import GreenroomProtocol

// Conveniences for the tests: each call its own transaction, straight on storage. The
// server writes only through its EventLog (the one writer, with the broker and the outbox),
// so these are not part of storage's API.

extension GreenroomStorage {
    /// Appends events in one transaction (a convenience over ``GreenroomStorage/write(_:retentionCount:)``).
    func appendEvents(_ appends: [EventAppend], retentionCount: UInt64) async throws -> [AppendOutcome] {
        let result = StepResult<[AppendOutcome]>()
        let outcomes = try await write([WriteStep(isolated: false) { transaction in
            result.set(try await transaction.append(appends))
        }], retentionCount: retentionCount)
        if case .failure(let error) = outcomes.first { throw error }
        return result.get ?? []
    }

    /// Runs `body` in a transaction of its own and returns its result.
    @discardableResult
    func transact<T: Sendable>(retentionCount: UInt64, _ body: @escaping @Sendable (any StorageTransaction) async throws -> T) async throws -> T {
        let result = StepResult<T>()
        let outcomes = try await write([WriteStep { transaction in result.set(try await body(transaction)) }], retentionCount: retentionCount)
        if case .failure(let error) = outcomes.first { throw error }
        guard let value = result.get else { throw GreenroomServerError.storage("a transaction returned nothing") }
        return value
    }
}

extension GreenroomStorage {
    /// Stores a new user in a transaction of its own. - Throws: `alreadyExists` when the id is taken.
    func insertUser(_ user: User) async throws {
        guard try await transact(retentionCount: .max, { try await $0.insertUser(user) }) else {
            throw GreenroomError(.alreadyExists, "a user with id \(user.id) exists already")
        }
    }

    /// Stores a user unless one with the id exists; returns the stored user either way.
    func insertUserIfMissing(_ user: User) async throws -> User {
        if let existing = try await self.user(id: user.id) { return existing }
        return try await transact(retentionCount: .max) { transaction in
            if try await transaction.insertUser(user) { return user }
            return try await transaction.user(id: user.id) ?? user
        }
    }

    /// Changes a user atomically: reads it, applies `change`, stores the result.
    /// - Returns: the stored user, or `nil` when there is no such user.
    func updateUser(id: String, _ change: @escaping @Sendable (inout User) throws -> Void) async throws -> User? {
        try await transact(retentionCount: .max) { transaction -> User? in
            guard var user = try await transaction.user(id: id) else { return nil }
            try change(&user)
            user.id = id
            try await transaction.saveUser(user)
            return user
        }
    }

    /// Deletes a user in a transaction of its own; returns whether it existed.
    func deleteUser(id: String) async throws -> Bool {
        try await transact(retentionCount: .max) { try await $0.deleteUser(id: id) }
    }

    /// Stores a presence entry in a transaction of its own; returns whether it is new.
    @discardableResult
    func putPresence(_ entry: PresenceEntry) async throws -> Bool {
        try await transact(retentionCount: .max) { try await $0.putPresence(entry) }
    }

    /// Removes a client's presence on a stream in a transaction of its own.
    @discardableResult
    func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await transact(retentionCount: .max) { try await $0.removePresence(stream: stream, clientId: clientId) }
    }
}
