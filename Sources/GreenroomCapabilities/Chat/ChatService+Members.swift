import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Joins a public channel, or accepts a pending invitation to any channel.
    package func join(_ id: ChannelId, userId: String) async throws -> ChatChannelMember {
        try await events.transact { transaction in
            var record = try await Self.channel(transaction, id)
            try await Self.checkNotBanned(transaction, id, userId)
            if let existing = try await Self.member(transaction, id, userId) {
                if existing.state == .joined { return existing }
                return try await Self.admit(existing, record: &record, transaction)
            }
            guard record.channel.isPublic else {
                throw GreenroomError(.invitationRequired, "channel \(id) is private: a member must invite \(userId)")
            }
            try await checkRoom(transaction, id, adding: 1)
            let member = ChatChannelMember(userId: userId, channelId: id, state: .joined, createdAt: Date.wireNow)
            return try await Self.admit(member, record: &record, transaction)
        }
    }

    /// Accepts the caller's pending invitation.
    package func acceptInvitation(_ id: ChannelId, userId: String) async throws -> ChatChannelMember {
        try await events.transact { transaction in
            var record = try await Self.channel(transaction, id)
            guard let invited = try await Self.member(transaction, id, userId), invited.state == .invited else {
                throw GreenroomError(.invitationNotFound, "\(userId) has no pending invitation to channel \(id)")
            }
            try await Self.checkNotBanned(transaction, id, userId)
            return try await Self.admit(invited, record: &record, transaction)
        }
    }

    /// Declines the caller's pending invitation.
    package func declineInvitation(_ id: ChannelId, userId: String) async throws {
        try await events.transact { transaction in
            _ = try await Self.channel(transaction, id)
            guard let invited = try await Self.member(transaction, id, userId), invited.state == .invited else {
                throw GreenroomError(.invitationNotFound, "\(userId) has no pending invitation to channel \(id)")
            }
            try await Self.removeMember(transaction, invited)
            _ = try await transaction.append([try Self.event(ChatEventType.invitationDeclined, on: id.stream,
                                                             ChatEvent(type: "", channelId: id, member: invited, actorId: userId))])
        }
    }

    /// Leaves a channel (or drops a pending invitation); `byBackend`: the app's backend
    /// removes the member (the event names no actor).
    package func leave(_ id: ChannelId, userId: String, byBackend: Bool = false) async throws {
        try await events.transact { transaction in
            let record = try await Self.channel(transaction, id)
            guard let member = try await Self.member(transaction, id, userId) else {
                throw GreenroomError(.notChannelMember, "\(userId) is not a member of channel \(id)")
            }
            try await Self.depart(member, from: record, actorId: byBackend ? nil : userId, in: transaction)
        }
    }

    /// Removes `member` from its channel in `transaction`: a joined member is counted out
    /// and the channel hears `member.left` (after which the member reads it no more), an
    /// invitee's invitation goes with `invitation.declined`; with `ban`, either hears
    /// `member.banned` instead.
    package static func depart(_ member: ChatChannelMember, from record: ChannelRecord, actorId: String?,
                               ban: ChannelBan? = nil, in transaction: any StorageTransaction) async throws {
        let id = member.channelId
        try await removeMember(transaction, member)
        if member.mutedUntil != nil { try await transaction.remove(MuteRecord.self, scope: id.rawValue, id: member.userId) }
        var type = ChatEventType.invitationDeclined
        if member.state == .joined {
            // Its read position, mentions and part in threads go with it (a deleted
            // channel removes all of them at once instead).
            try await transaction.remove(ReadRecord.self, scope: id.rawValue, id: member.userId)
            try await transaction.remove(DeliveryRecord.self, scope: id.rawValue, id: member.userId)
            try await removeMentions(of: member.userId, in: id, transaction)
            try await leaveThreads(of: member.userId, in: id, transaction)
            var record = record
            record.channel.memberCount -= 1
            try await transaction.save(record)
            type = ChatEventType.memberLeft
        }
        var left = try event(ban == nil ? type : ChatEventType.memberBanned, on: id.stream,
                             ChatEvent(type: "", channelId: id, member: member, actorId: actorId, ban: ban))
        if member.state == .joined { left.revokes = .users([member.userId]) }
        _ = try await transaction.append([left])
    }

    /// Invites users on behalf of a member: each joins at once unless it turned automatic
    /// acceptance off, then it is invited. Users already members or invited are left as
    /// they are. - Returns: the new memberships.
    package func invite(_ args: ChannelUsersArgs, by inviter: String) async throws -> [ChatChannelMember] {
        try Self.checkUserIds(args.userIds)
        let targets = Array(Set(args.userIds)).sorted()
        try await requireUsers(targets)
        let id = args.channelId
        return try await events.transact { transaction in
            var record = try await Self.channel(transaction, id)
            try await Self.requireJoined(transaction, id, inviter)
            var fresh: [String] = []
            for userId in targets where try await Self.member(transaction, id, userId) == nil { fresh.append(userId) }
            for userId in fresh {
                try await Self.checkNotBanned(transaction, id, userId)
                try await Self.checkNotBlocked(transaction, inviter, userId)
            }
            try await checkRoom(transaction, id, adding: fresh.count)
            var added: [ChatChannelMember] = []
            var appends: [EventAppend] = []
            for userId in fresh {
                let accepts = try await Self.autoAccepts(transaction, userId)
                var member = ChatChannelMember(userId: userId, channelId: id, state: .invited, inviterId: inviter, createdAt: Date.wireNow)
                if accepts {
                    member = try await Self.admit(member, record: &record, transaction)
                } else {
                    try await Self.saveMember(transaction, member)
                    var seen = record.channel
                    seen.membership = member
                    appends.append(try Self.event(ChatEventType.memberInvited, on: id.stream,
                                                  ChatEvent(type: "", channelId: id, member: member, actorId: inviter)))
                    appends.append(try Self.event(ChatEventType.channelInvited, on: StreamName.user(userId),
                                                  ChatEvent(type: "", channelId: id, channel: seen, member: member, actorId: inviter)))
                }
                added.append(member)
            }
            if !appends.isEmpty { _ = try await transaction.append(appends) }
            return added
        }
    }

    /// Makes a member operators, or plain members again. Operators only; every user must
    /// have joined. Users already in the asked role are left as they are.
    package func setOperators(_ args: ChannelUsersArgs, to isOperator: Bool, by userId: String) async throws {
        try Self.checkUserIds(args.userIds)
        let id = args.channelId
        try await events.transact { transaction in
            _ = try await Self.channel(transaction, id)
            try await Self.requireOperator(transaction, id, userId)
            var changed: [String] = []
            for target in Array(Set(args.userIds)).sorted() {
                guard var member = try await Self.member(transaction, id, target), member.state == .joined else {
                    throw GreenroomError(.notChannelMember, "\(target) is not a member of channel \(id)")
                }
                guard member.isOperator != isOperator else { continue }
                member.isOperator = isOperator
                try await Self.saveMember(transaction, member)
                changed.append(target)
            }
            guard !changed.isEmpty else { return }
            let type = isOperator ? ChatEventType.operatorsAdded : ChatEventType.operatorsRemoved
            _ = try await transaction.append([try Self.event(type, on: id.stream, ChatEvent(type: "", channelId: id, userIds: changed, actorId: userId))])
        }
    }

    /// A page of a channel's members, by user id. Members only.
    package func members(_ args: MemberListArgs, by reader: String) async throws -> Page<ChatChannelMember> {
        let limit = try Paging.limit(args.limit)
        _ = try await Self.channel(storage, args.channelId)
        try await Self.requireJoined(storage, args.channelId, reader)
        var query = RecordQuery(kind: MemberRecord.recordKind, scope: args.channelId.rawValue)
        query.tags = switch args.filter ?? .all {
        case .all: MemberRecord.joinedTags
        case .operators: ["operator"]
        case .nonOperators: ["member"]
        case .invited: ["invited"]
        }
        query.after = try args.cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(MemberRecord.self, query, limit: limit)
        return Page(items: page.map(\.member), next: next)
    }

    /// Throws `channelMemberLimitReached` unless `count` more members fit.
    private func checkRoom(_ transaction: any StorageTransaction, _ id: ChannelId, adding count: Int) async throws {
        guard count > 0 else { return }
        let current = try await Self.countMembers(transaction, id)
        guard current + count <= memberLimit else {
            throw GreenroomError(.channelMemberLimitReached, "channel \(id) has \(current) of at most \(memberLimit) members; \(count) more do not fit")
        }
    }

    /// Makes a membership joined: stores it, counts it, and tells the channel and the member.
    package static func admit(_ member: ChatChannelMember, record: inout ChannelRecord, _ transaction: any StorageTransaction) async throws -> ChatChannelMember {
        var member = member
        member.state = .joined
        member.createdAt = Date.wireNow
        try await saveMember(transaction, member)
        // A new member has read what was sent before it joined.
        try await transaction.save(ReadRecord(read: ChannelRead(
            channelId: member.channelId, userId: member.userId, lastReadSequence: record.messageSeq, lastReadAt: member.createdAt)))
        record.channel.memberCount += 1
        try await transaction.save(record)
        let id = record.channel.id
        var seen = record.channel
        seen.membership = member
        _ = try await transaction.append([
            try event(ChatEventType.memberJoined, on: id.stream, ChatEvent(type: "", channelId: id, member: member, actorId: member.inviterId ?? member.userId)),
            try event(ChatEventType.channelAdded, on: StreamName.user(member.userId), ChatEvent(type: "", channelId: id, channel: seen, member: member)),
        ])
        return member
    }
}
