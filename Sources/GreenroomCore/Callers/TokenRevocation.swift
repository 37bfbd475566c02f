import Foundation
import GreenroomProtocol
import GreenroomStorage

/// When a user's tokens were last revoked: tokens issued at or before `notBefore` are
/// refused. Kept after the user is deleted, so that its earlier tokens stay refused.
package struct TokenRevocationRecord: StoredRecord {
    package static let recordKind = "token-revocation"
    package var userId: String
    package var notBefore: Date
    /// The user's app-wide ban, while one is recorded (``UserBans``): kept here so that a
    /// token's check reads one record.
    package var ban: UserBan?

    package var recordId: String { userId }
}

/// Revoking a user's tokens: on every node within a second, and for good.
///
/// A revocation is a record (read when a token is used: connecting, REST) and an event,
/// `user.tokensRevoked` on the user's stream, which every node's broker hands to its
/// ``EventHub`` whether or not anyone follows that stream; each node then closes the
/// user's connections whose token is that old with 4101 (``CloseCode/forbidden``).
package enum TokenRevocation {
    /// The event every node acts on.
    package static let eventType = "user.tokensRevoked"

    /// Refuses, in `transaction`, every token of `userId` issued up to `now`, and announces
    /// it. The record keeps the latest revocation. - Returns: the instant tokens must be
    /// issued after.
    @discardableResult
    package static func revoke(_ userId: String, at now: Date = Date(), reason: String? = nil,
                               in transaction: any StorageTransaction) async throws -> Date {
        let earlier = try await transaction.load(TokenRevocationRecord.self, id: userId)
        // Up to the next whole millisecond, as dates are stored: no token issued before
        // `now` slips under a rounded-down mark.
        let notBefore = max(earlier?.notBefore ?? .distantPast, Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.up) / 1000))
        try await transaction.save(TokenRevocationRecord(userId: userId, notBefore: notBefore, ban: earlier?.ban))
        var data: [String: RawJSON] = ["userId": .string(userId), "notBefore": .string(WireCoding.formatDate(notBefore))]
        if let reason { data["reason"] = .string(reason) }
        _ = try await transaction.append([EventAppend(stream: StreamName.user(userId), type: eventType, data: .dictionary(data))])
        return notBefore
    }

    /// Throws `userBanned` while `identity`'s user is banned from the app, and
    /// `tokenRevoked` when its token was issued at or before its user's last revocation.
    package static func check(_ identity: Identity, in storage: any RecordReading) async throws {
        guard let record = try await storage.load(TokenRevocationRecord.self, id: identity.userId) else { return }
        if let ban = record.ban, ban.isActive() {
            let until = ban.expiresAt.map { " until \(WireCoding.formatDate($0))" } ?? ""
            throw GreenroomError(.userBanned, "\(identity.userId) is banned from this app\(until)")
        }
        guard identity.issuedAt <= record.notBefore else { return }
        throw GreenroomError(.tokenRevoked, "this token was revoked: get a fresh one from the app")
    }

    /// What a stored event revokes, if it is a revocation: the user, the instant and the
    /// reason its connections are told, if one was given.
    package static func revocation(in event: StreamEvent) -> (userId: String, notBefore: Date, reason: String?)? {
        guard event.type == eventType, StreamName.split(event.stream).kind == StreamKind.user.rawValue,
              let userId = event.data["userId"]?.stringValue,
              let text = event.data["notBefore"]?.stringValue, let notBefore = WireCoding.parseDate(text) else { return nil }
        return (userId, notBefore, event.data["reason"]?.stringValue)
    }
}
