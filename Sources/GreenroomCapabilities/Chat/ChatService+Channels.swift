import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Creates a group channel (or returns the distinct channel these members have already).
    package func create(_ args: ChannelCreateArgs, by creator: String) async throws -> ChatChannel {
        let id = args.id ?? ChannelId("c" + RandomHex.string(bytes: 8))
        guard Limits.isValidId(id.rawValue) else {
            throw GreenroomError(.invalidParameterValue, "the channel id must be 1–128 characters of letters, digits and _-.@")
        }
        let others = Array(Set(args.members ?? []).subtracting([creator])).sorted()
        let everyone = Set(others + [creator])
        guard everyone.count <= memberLimit else {
            throw GreenroomError(.channelMemberLimitReached, "a channel may have at most \(memberLimit) members")
        }
        let operators = Set(args.operators ?? [])
        if let stranger = operators.subtracting(everyone).sorted().first {
            throw GreenroomError(.notChannelMember, "operator \(stranger) is not among the members")
        }
        try await requireUsers(others)
        if args.isDistinct == true {
            for other in others { try await Self.checkNotBlocked(storage, creator, other) }
        }
        let now = Date.wireNow
        var channel = ChatChannel(
            id: id, name: args.name ?? Self.defaultName(everyone), coverURL: args.coverURL,
            isPublic: args.isPublic ?? false, isDistinct: args.isDistinct ?? false, extraData: args.extraData ?? [:],
            createdBy: creator, createdAt: now, updatedAt: now)
        try Self.validate(&channel)
        let distinctKey = channel.isDistinct ? DistinctChannelRecord.key(for: everyone) : nil
        let channelToCreate = channel
        let channelsPerUser = channelsPerUser
        return try await events.transact { transaction in
            var channel = channelToCreate
            if let distinctKey, let existing = try await transaction.load(DistinctChannelRecord.self, id: distinctKey),
               existing.members == everyone.sorted(),
               let found = try await transaction.load(ChannelRecord.self, id: existing.channelId.rawValue) {
                var reused = found.channel
                reused.membership = try await Self.member(transaction, reused.id, creator)
                return reused
            }
            let created = try await transaction.load(ChannelCountRecord.self, id: creator)?.count ?? 0
            guard created < channelsPerUser else {
                throw GreenroomError(.rateLimited, "\(creator) has created \(created) channels, the most one user may have; delete some first")
            }
            guard try await transaction.insert(try ChannelRecord(channel: channel, messageSeq: 0, distinctKey: distinctKey).asRecord()) else {
                throw GreenroomError(.alreadyExists, "a channel with id \(id) exists already")
            }
            try await transaction.save(ChannelCountRecord(userId: creator, count: created + 1))
            let owner = ChatChannelMember(userId: creator, channelId: id, state: .joined, isOperator: true, createdAt: now)
            try await Self.saveMember(transaction, owner)
            var members = [owner]
            for userId in others {
                let accepts = try await Self.autoAccepts(transaction, userId)
                let member = ChatChannelMember(userId: userId, channelId: id, state: accepts ? .joined : .invited,
                                               isOperator: operators.contains(userId), inviterId: creator, createdAt: now)
                try await Self.saveMember(transaction, member)
                members.append(member)
            }
            channel.memberCount = members.filter { $0.state == .joined }.count
            try await transaction.save(ChannelRecord(channel: channel, messageSeq: 0, distinctKey: distinctKey))
            if let distinctKey {
                try await transaction.save(DistinctChannelRecord(key: distinctKey, channelId: id, members: everyone.sorted()))
            }
            var appends: [EventAppend] = []
            for member in members where member.userId != creator {
                var seen = channel
                seen.membership = member
                let type = member.state == .joined ? ChatEventType.channelAdded : ChatEventType.channelInvited
                appends.append(try Self.event(type, on: StreamName.user(member.userId),
                                              ChatEvent(type: type, channelId: id, channel: seen, member: member, actorId: creator)))
            }
            if !appends.isEmpty { _ = try await transaction.append(appends) }
            channel.membership = owner
            return channel
        }
    }

    /// A channel as the reader sees it: members and invitees always; others only when it is public.
    package func get(_ id: ChannelId, by reader: String) async throws -> ChatChannel {
        var channel = try await Self.channel(storage, id).channel
        channel.membership = try await Self.member(storage, id, reader)
        guard channel.membership != nil || channel.isPublic else {
            throw GreenroomError(.notChannelMember, "\(reader) is not a member of private channel \(id)")
        }
        return channel
    }

    /// The reader's channels (and invitations), newest activity first.
    package func list(_ args: ChannelListArgs, by reader: String) async throws -> Page<ChatChannel> {
        let limit = try Paging.limit(args.limit)
        var query = RecordQuery(kind: ChannelRecord.recordKind)
        let tags = (args.includeInvitations ?? true) ? [ChatMemberState.joined.rawValue, ChatMemberState.invited.rawValue] : [ChatMemberState.joined.rawValue]
        query.via = (MembershipRecord.recordKind, reader, tags)
        query.descending = true
        query.after = try args.cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(ChannelRecord.self, query, limit: limit)
        var memberships = RecordQuery(kind: MembershipRecord.recordKind, scope: reader, limit: limit)
        memberships.ids = page.map(\.recordId)
        let mine = Dictionary(uniqueKeysWithValues: try await storage.list(MembershipRecord.self, memberships).map { ($0.member.channelId, $0.member) })
        let items = page.map { record -> ChatChannel in
            var channel = record.channel
            channel.membership = mine[channel.id]
            return channel
        }
        return Page(items: items, next: next)
    }

    /// Replaces name, picture, visibility (when given) and extra data. Operators only.
    package func update(_ args: ChannelUpdateArgs, by userId: String) async throws -> ChatChannel {
        try await change(args.channelId, by: userId) { channel in
            channel.name = args.name
            channel.coverURL = args.coverURL
            if let isPublic = args.isPublic { channel.isPublic = isPublic }
            channel.extraData = args.extraData ?? [:]
        }
    }

    /// Sets the fields given and removes `unset` (`coverURL` or extra data keys). Operators
    /// only; the app's backend (`userId` `nil`) may always.
    package func partialUpdate(_ args: ChannelPartialUpdateArgs, by userId: String?) async throws -> ChatChannel {
        let unset = args.unset ?? []
        if let set = args.extraData, let both = unset.first(where: { set[$0] != nil }) {
            throw GreenroomError(.invalidParameterValue, "\(both) is both set and unset")
        }
        if let fixed = unset.first(where: { ["id", "name", "isPublic", "isDistinct"].contains($0) }) {
            throw GreenroomError(.invalidParameterValue, "\(fixed) cannot be unset")
        }
        return try await change(args.channelId, by: userId) { channel in
            if let name = args.name { channel.name = name }
            if let url = args.coverURL { channel.coverURL = url }
            if let isPublic = args.isPublic { channel.isPublic = isPublic }
            for (key, value) in args.extraData ?? [:] { channel.extraData[key] = value }
            for name in unset {
                if name == "coverURL" { channel.coverURL = nil } else { channel.extraData[name] = nil }
            }
        }
    }

    /// Changes a channel as `userId`, who must be an operator, or as the app's backend (`nil`).
    func change(_ id: ChannelId, by userId: String?, _ body: @escaping @Sendable (inout ChatChannel) -> Void) async throws -> ChatChannel {
        try await events.transact { transaction in
            var record = try await Self.channel(transaction, id)
            if let userId { try await Self.requireOperator(transaction, id, userId) }
            body(&record.channel)
            record.channel.updatedAt = Date.wireNow
            try Self.validate(&record.channel)
            try await transaction.save(record)
            var channel = record.channel
            _ = try await transaction.append([try Self.event(ChatEventType.channelUpdated, on: id.stream,
                                                             ChatEvent(type: "", channelId: id, channel: channel, actorId: userId))])
            if let userId { channel.membership = try await Self.member(transaction, id, userId) }
            return channel
        }
    }

    /// Deletes the channel, its members and its messages. Operators only. Every member
    /// hears of it on the channel's stream and on their own; then the channel's stream is
    /// retired, so that nothing of it can be read again, by anyone who creates a channel
    /// with the same id either.
    package func delete(_ id: ChannelId, by userId: String) async throws {
        let files = try await events.transact { transaction in
            let record = try await Self.channel(transaction, id)
            try await Self.requireOperator(transaction, id, userId)
            let members = try await Self.allMembers(transaction, id)
            for member in members { try await Self.removeMember(transaction, member) }
            try await transaction.deleteRecords(kind: MessageRecord.recordKind, scope: id.rawValue)
            try await transaction.deleteRecords(kind: TextSearch.kind, scope: id.rawValue)
            let files = try await ChatFiles.drop(filesOf: id, in: transaction)
            try await transaction.deleteRecords(kind: MessageKeyRecord.recordKind, scope: id.rawValue)
            try await transaction.deleteRecords(kind: MentionRecord.recordKind, scope: id.rawValue)
            try await transaction.deleteRecords(kind: PinRecord.recordKind, scope: id.rawValue)
            try await transaction.deleteRecords(kind: ReadRecord.recordKind, scope: id.rawValue)
            try await transaction.deleteRecords(kind: DeliveryRecord.recordKind, scope: id.rawValue)
            try await transaction.deleteRecords(kind: MuteRecord.recordKind, scope: id.rawValue)
            let bans = try await transaction.list(ChannelBanRecord.self, RecordQuery(kind: ChannelBanRecord.recordKind, scope: id.rawValue, limit: 1_000_000))
            for ban in bans { try await transaction.remove(UserChannelBanRecord.self, scope: ban.ban.userId, id: id.rawValue) }
            try await transaction.deleteRecords(kind: ChannelBanRecord.recordKind, scope: id.rawValue)
            try await Self.removeThreads(of: id, transaction)
            if let key = record.distinctKey { try await transaction.remove(DistinctChannelRecord.self, id: key) }
            try await transaction.remove(ChannelRecord.self, id: id.rawValue)
            let creator = record.channel.createdBy
            if let created = try await transaction.load(ChannelCountRecord.self, id: creator), created.count > 0 {
                try await transaction.save(ChannelCountRecord(userId: creator, count: created.count - 1))
            }
            let gone = ChatEvent(type: "", channelId: id, actorId: userId)
            var deleted = try Self.event(ChatEventType.channelDeleted, on: id.stream, gone)
            deleted.revokes = .everyone
            var appends = [deleted]
            for member in members {
                appends.append(try Self.event(ChatEventType.channelDeleted, on: StreamName.user(member.userId), gone))
            }
            _ = try await transaction.append(appends)
            try await transaction.retire(stream: id.stream)
            return files
        }
        removeFolders(files)
    }

    /// The members' ids, as many as fit in a name.
    package static func defaultName(_ members: Set<String>) -> String {
        var name = ""
        for id in members.sorted() {
            let next = name.isEmpty ? id : name + ", " + id
            guard next.count <= Limits.maxNicknameLength - 4 else { return name + ", …" }
            name = next
        }
        return name
    }

    package static func validate(_ channel: inout ChatChannel) throws {
        channel.name = channel.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard channel.name.count <= Limits.maxNicknameLength else {
            throw GreenroomError(.invalidParameterValue, "name must be at most \(Limits.maxNicknameLength) characters")
        }
        if let url = channel.coverURL, url.count > 2048 || URL(string: url) == nil {
            throw GreenroomError(.invalidParameterValue, "coverURL is not a valid URL")
        }
        if let error = Limits.checkExtraData(channel.extraData) { throw error }
    }
}
