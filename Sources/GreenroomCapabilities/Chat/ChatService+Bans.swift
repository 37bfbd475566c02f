import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Throws `bannedFromChannel` while `userId` is banned from the channel; an expired
    /// ban found here is removed.
    static func checkNotBanned(_ transaction: any StorageTransaction, _ id: ChannelId, _ userId: String) async throws {
        guard let record = try await transaction.load(ChannelBanRecord.self, scope: id.rawValue, id: userId) else { return }
        guard record.ban.isActive(at: Date.wireNow) else {
            try await removeBan(transaction, id, userId)
            return
        }
        let until = record.ban.expiresAt.map { " until \(WireCoding.formatDate($0))" } ?? ""
        throw GreenroomError(.bannedFromChannel, "\(userId) is banned from channel \(id)\(until)")
    }

    private static func removeBan(_ transaction: any StorageTransaction, _ id: ChannelId, _ userId: String) async throws {
        try await transaction.remove(ChannelBanRecord.self, scope: id.rawValue, id: userId)
        try await transaction.remove(UserChannelBanRecord.self, scope: userId, id: id.rawValue)
    }

    /// Bans a user who is not an operator from a channel: a member or invitee is removed
    /// (and stops reading the channel), and the channel hears `member.banned`. Operators
    /// only; the app's backend (`userId` `nil`) always. Banning again replaces the ban.
    package func ban(_ args: BanArgs, by userId: String?) async throws -> ChannelBan {
        try ModerationChecks.duration(args.seconds, untilLifted: "unbanned")
        try ModerationChecks.reason(args.reason)
        guard Limits.isValidId(args.userId) else { throw GreenroomError(.invalidParameterValue, "userId is not a valid user id") }
        if args.userId == userId { throw GreenroomError(.invalidParameterValue, "an operator cannot ban itself") }
        let id = args.channelId
        return try await events.transact(streams: [id.stream]) { transaction in
            let record = try await Self.channel(transaction, id)
            if let userId { try await Self.requireOperator(transaction, id, userId) }
            let now = Date.wireNow
            let ban = ChannelBan(channelId: id, userId: args.userId, reason: args.reason, bannedBy: userId, createdAt: now,
                                 expiresAt: args.seconds.map { now.addingTimeInterval(TimeInterval($0)) })
            try await transaction.save(ChannelBanRecord(ban: ban))
            try await transaction.save(UserChannelBanRecord(userId: args.userId, channelId: id))
            if let member = try await Self.member(transaction, id, args.userId) {
                guard !member.isOperator else {
                    throw GreenroomError(.invalidParameterValue, "\(args.userId) is an operator; remove the role first")
                }
                try await Self.depart(member, from: record, actorId: userId, ban: ban, in: transaction)
            } else {
                _ = try await transaction.append([try Self.event(ChatEventType.memberBanned, on: id.stream,
                                                                 ChatEvent(type: "", channelId: id, actorId: userId, ban: ban))])
            }
            return ban
        }
    }

    /// Lifts a ban and tells the channel (`member.unbanned`). Operators only; the app's
    /// backend (`userId` `nil`) always.
    package func unban(_ args: ChannelUserArgs, by userId: String?) async throws {
        let id = args.channelId
        try await events.transact(streams: [id.stream]) { transaction in
            _ = try await Self.channel(transaction, id)
            if let userId { try await Self.requireOperator(transaction, id, userId) }
            guard let record = try await transaction.load(ChannelBanRecord.self, scope: id.rawValue, id: args.userId),
                  record.ban.isActive(at: Date.wireNow) else {
                throw GreenroomError(.notFound, "\(args.userId) is not banned from channel \(id)")
            }
            try await Self.removeBan(transaction, id, args.userId)
            _ = try await transaction.append([try Self.event(ChatEventType.memberUnbanned, on: id.stream,
                                                             ChatEvent(type: "", channelId: id, actorId: userId, ban: record.ban))])
        }
    }

    /// A page of the bans in force, by user id. Operators only; the app's backend (`nil`)
    /// always. A page may hold fewer than `limit` where bans ended.
    package func bannedMembers(_ args: ChannelPageArgs, by userId: String?) async throws -> Page<ChannelBan> {
        let (page, next) = try await operatorPage(ChannelBanRecord.self, args, by: userId)
        let now = Date.wireNow
        return Page(items: page.map(\.ban).filter { $0.isActive(at: now) }, next: next)
    }

    /// A page of the members muted now, by user id. Operators only; the app's backend
    /// (`nil`) always. A page may hold fewer than `limit` where mutes ended.
    package func mutedMembers(_ args: ChannelPageArgs, by userId: String?) async throws -> Page<ChatChannelMember> {
        let (page, next) = try await operatorPage(MuteRecord.self, args, by: userId)
        let now = Date.wireNow
        var members: [ChatChannelMember] = []
        for mute in page where mute.mutedUntil > now {
            if let member = try await Self.member(storage, args.channelId, mute.userId), member.isMuted(at: now) { members.append(member) }
        }
        return Page(items: members, next: next)
    }

    private func operatorPage<R: StoredRecord>(_ type: R.Type, _ args: ChannelPageArgs, by userId: String?) async throws -> (items: [R], next: String?) {
        let limit = try Paging.limit(args.limit)
        _ = try await Self.channel(storage, args.channelId)
        if let userId { try await Self.requireOperator(storage, args.channelId, userId) }
        var query = RecordQuery(kind: R.recordKind, scope: args.channelId.rawValue)
        query.after = try args.cursor.map(RecordCursor.decode)
        return try await storage.page(R.self, query, limit: limit)
    }

    /// A deleted user's channel bans go with it.
    static func forgetBans(of userId: String, in transaction: any StorageTransaction) async throws {
        let bans = try await transaction.list(UserChannelBanRecord.self, RecordQuery(kind: UserChannelBanRecord.recordKind, scope: userId, limit: 1_000_000))
        for ban in bans { try await removeBan(transaction, ban.channelId, userId) }
    }
}
