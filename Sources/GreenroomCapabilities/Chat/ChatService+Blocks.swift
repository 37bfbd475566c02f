import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The event types of blocks, on the blocker's own stream, so that its other devices
/// hide the same messages.
package enum BlockEventType {
    /// The user blocked someone (data: ``BlockedUser``).
    package static let blocked = "user.blocked"
    /// The user unblocked someone (data: `{"userId"}`).
    package static let unblocked = "user.unblocked"
}

extension ChatService {
    /// The caller blocks `target`: its messages are left out of what the caller lists, and
    /// no distinct channel or invitation joins the two. Blocking again keeps the first.
    package func block(_ target: String, by userId: String) async throws -> BlockedUser {
        guard target != userId else { throw GreenroomError(.invalidParameterValue, "a user cannot block itself") }
        try await requireUsers([target])
        return try await events.transact { transaction in
            if let existing = try await transaction.load(BlockRecord.self, scope: userId, id: target) { return existing.blocked }
            let count = try await transaction.countRecords(RecordQuery(kind: BlockRecord.recordKind, scope: userId))
            guard count < Limits.maxBlockedUsers else {
                throw GreenroomError(.invalidParameterValue, "\(userId) has blocked \(count) users, the most one may; unblock some first")
            }
            let blocked = BlockedUser(userId: target, createdAt: Date.wireNow)
            try await transaction.save(BlockRecord(blockerId: userId, blocked: blocked))
            try await transaction.save(BlockedByRecord(userId: target, blockerId: userId))
            _ = try await transaction.append([EventAppend(stream: StreamName.user(userId), type: BlockEventType.blocked,
                                                          data: try RawJSON(encoding: blocked))])
            return blocked
        }
    }

    /// The caller unblocks `target`. - Throws: `notFound` when it had not blocked it.
    package func unblock(_ target: String, by userId: String) async throws {
        try await events.transact { transaction in
            guard try await transaction.load(BlockRecord.self, scope: userId, id: target) != nil else {
                throw GreenroomError(.notFound, "\(userId) has not blocked \(target)")
            }
            try await transaction.remove(BlockRecord.self, scope: userId, id: target)
            try await transaction.remove(BlockedByRecord.self, scope: target, id: userId)
            _ = try await transaction.append([EventAppend(stream: StreamName.user(userId), type: BlockEventType.unblocked,
                                                          data: ["userId": .string(target)])])
        }
    }

    /// A page of the users the caller blocked, by user id.
    package func blockedUsers(_ args: BlockedUsersArgs, by userId: String) async throws -> Page<BlockedUser> {
        let limit = try Paging.limit(args.limit)
        var query = RecordQuery(kind: BlockRecord.recordKind, scope: userId)
        query.after = try args.cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(BlockRecord.self, query, limit: limit)
        return Page(items: page.map(\.blocked), next: next)
    }

    /// The users `userId` blocked (at most ``Limits/maxBlockedUsers``).
    func blockedIds(of userId: String) async throws -> Set<String> {
        let blocks = try await storage.list(BlockRecord.self, RecordQuery(kind: BlockRecord.recordKind, scope: userId, limit: Limits.maxBlockedUsers))
        return Set(blocks.map(\.blocked.userId))
    }

    /// `messages` without those whose sender `reader` blocked.
    func hidingBlocked(_ messages: [ChatMessage], from reader: String) async throws -> [ChatMessage] {
        guard !messages.isEmpty else { return messages }
        let blocked = try await blockedIds(of: reader)
        return blocked.isEmpty ? messages : messages.filter { !blocked.contains($0.senderId) }
    }

    /// Throws `userBlocked` when either of the two users blocked the other.
    static func checkNotBlocked(_ reader: any RecordReading, _ one: String, _ other: String) async throws {
        guard one != other else { return }
        let mine = try await reader.load(BlockRecord.self, scope: one, id: other)
        let theirs = try await reader.load(BlockRecord.self, scope: other, id: one)
        if mine != nil || theirs != nil {
            throw GreenroomError(.userBlocked, "one of \(one) and \(other) has blocked the other")
        }
    }

    /// A deleted user's blocks, both ways, go with it.
    static func forgetBlocks(of userId: String, in transaction: any StorageTransaction) async throws {
        let mine = try await transaction.list(BlockRecord.self, RecordQuery(kind: BlockRecord.recordKind, scope: userId, limit: 1_000_000))
        for block in mine { try await transaction.remove(BlockedByRecord.self, scope: block.blocked.userId, id: userId) }
        _ = try await transaction.deleteRecords(kind: BlockRecord.recordKind, scope: userId)
        let theirs = try await transaction.list(BlockedByRecord.self, RecordQuery(kind: BlockedByRecord.recordKind, scope: userId, limit: 1_000_000))
        for block in theirs { try await transaction.remove(BlockRecord.self, scope: block.blockerId, id: userId) }
        _ = try await transaction.deleteRecords(kind: BlockedByRecord.recordKind, scope: userId)
    }
}
