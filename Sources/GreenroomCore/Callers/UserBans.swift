import Foundation
import GreenroomProtocol
import GreenroomStorage

/// App-wide bans: the app's backend bans a user for a while or until lifted. A ban is a
/// token revocation (``TokenRevocation``: its connections close on every node with 4101)
/// plus the ban kept on the revocation's record, which refuses every token of the user,
/// old or new, with `userBanned` while it holds. Lifting it lets tokens issued after the
/// ban in; the ones issued before stay revoked.
package enum UserBans {
    /// Bans `userId` in `transaction`. - Throws: `invalidParameterValue` for a duration
    /// or reason out of range.
    package static func ban(_ userId: String, _ args: UserBanArgs, in transaction: any StorageTransaction) async throws -> UserBan {
        try ModerationChecks.duration(args.seconds, untilLifted: "lifted")
        try ModerationChecks.reason(args.reason)
        let now = Date.wireNow
        let ban = UserBan(userId: userId, reason: args.reason, createdAt: now,
                          expiresAt: args.seconds.map { now.addingTimeInterval(TimeInterval($0)) })
        let notBefore = try await TokenRevocation.revoke(userId, at: now, reason: "this user was banned", in: transaction)
        try await transaction.save(TokenRevocationRecord(userId: userId, notBefore: notBefore, ban: ban))
        return ban
    }

    /// Lifts `userId`'s ban. - Throws: `notFound` when none holds.
    package static func lift(_ userId: String, in transaction: any StorageTransaction) async throws {
        guard var record = try await transaction.load(TokenRevocationRecord.self, id: userId), record.ban?.isActive() == true else {
            throw GreenroomError(.notFound, "\(userId) is not banned")
        }
        record.ban = nil
        try await transaction.save(record)
    }

    /// `userId`'s ban, while it holds.
    package static func ban(of userId: String, in reader: any RecordReading) async throws -> UserBan? {
        guard let ban = try await reader.load(TokenRevocationRecord.self, id: userId)?.ban, ban.isActive() else { return nil }
        return ban
    }
}
