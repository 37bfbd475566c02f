import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The rules of chat, enforced here whatever a client shows: who may read, send, invite,
/// operate and delete; member limits; and the events each change puts on the channel's
/// stream and on users' private streams, written in the same transaction as the change.
package struct ChatService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    /// The most members (joined and invited) a channel may have.
    package let memberLimit: Int
    /// The most channels one user may have created (and not deleted).
    package var channelsPerUser = 1_000
    /// Channels with more joined members than this announce read and delivery receipts
    /// batched, at most once a second per channel on this node.
    package var receiptBatchMembers = 100
    /// The receipts of big channels waiting for their batch.
    package let receipts = ReceiptBatches()
    /// The app's blocklist, folded for matching.
    package let blocklists = BlocklistCache()
    /// Where attachments' folders are (``ChatFiles``), so that a deletion removes them.
    package var fileDirectory: URL?

    /// Removes the folders of the files `ids`, whose records a committed change removed.
    func removeFolders(_ ids: [String]) {
        if let fileDirectory { ChatFiles.removeFolders(ids, under: fileDirectory) }
    }

    // MARK: Reading and checking

    package static func channel(_ reader: any RecordReading, _ id: ChannelId) async throws -> ChannelRecord {
        guard let record = try await reader.load(ChannelRecord.self, id: id.rawValue) else {
            throw GreenroomError(.notFound, "no channel with id \(id)")
        }
        return record
    }

    package static func member(_ reader: any RecordReading, _ channel: ChannelId, _ userId: String) async throws -> ChatChannelMember? {
        try await reader.load(MemberRecord.self, scope: channel.rawValue, id: userId)?.member
    }

    /// The caller's membership; throws `notChannelMember` unless the caller has joined.
    @discardableResult
    package static func requireJoined(_ reader: any RecordReading, _ channel: ChannelId, _ userId: String) async throws -> ChatChannelMember {
        guard let member = try await member(reader, channel, userId), member.state == .joined else {
            throw GreenroomError(.notChannelMember, "\(userId) is not a member of channel \(channel)")
        }
        return member
    }

    /// Throws `operatorRequired` unless the caller is one of the channel's operators.
    package static func requireOperator(_ reader: any RecordReading, _ channel: ChannelId, _ userId: String) async throws {
        guard try await requireJoined(reader, channel, userId).isOperator else {
            throw GreenroomError(.operatorRequired, "only an operator of channel \(channel) may do this")
        }
    }

    /// How many members of the channel have one of `tags` (all, invited included, when `nil`).
    package static func countMembers(_ reader: any RecordReading, _ channel: ChannelId, tags: [String]? = nil) async throws -> Int {
        var query = RecordQuery(kind: MemberRecord.recordKind, scope: channel.rawValue)
        query.tags = tags
        return try await reader.countRecords(query)
    }

    /// Every member and invitee of a channel.
    package static func allMembers(_ reader: any RecordReading, _ channel: ChannelId) async throws -> [ChatChannelMember] {
        try await reader.list(MemberRecord.self, RecordQuery(kind: MemberRecord.recordKind, scope: channel.rawValue, limit: 100_000)).map(\.member)
    }

    package static func saveMember(_ transaction: any StorageTransaction, _ member: ChatChannelMember) async throws {
        try await transaction.save(MemberRecord(member: member))
        try await transaction.save(MembershipRecord(member: member))
    }

    package static func removeMember(_ transaction: any StorageTransaction, _ member: ChatChannelMember) async throws {
        try await transaction.remove(MemberRecord.self, scope: member.channelId.rawValue, id: member.userId)
        try await transaction.remove(MembershipRecord.self, scope: member.userId, id: member.channelId.rawValue)
    }

    /// Whether a user accepts invitations without asking (the default).
    package static func autoAccepts(_ reader: any RecordReading, _ userId: String) async throws -> Bool {
        try await reader.load(ChatPreferenceRecord.self, id: userId)?.autoAcceptInvitations ?? true
    }

    package static func event(_ type: String, on stream: String, _ event: ChatEvent) throws -> EventAppend {
        var event = event
        event.type = type
        return EventAppend(stream: stream, type: type, data: try RawJSON(encoding: event))
    }

    /// Checks that every user exists. - Throws: `notFound` naming the missing ones.
    package func requireUsers(_ ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        for id in ids where !Limits.isValidId(id) {
            throw GreenroomError(.invalidParameterValue, "\(id) is not a valid user id")
        }
        let found = Set(try await storage.listUsers(ids: ids, nicknamePrefix: nil, afterId: nil, limit: ids.count).map(\.id))
        let missing = Set(ids).subtracting(found).sorted()
        if !missing.isEmpty {
            throw GreenroomError(.notFound, "no user with id \(missing.joined(separator: ", "))")
        }
    }

    package static func checkUserIds(_ ids: [String]) throws {
        guard (1...Limits.maxPageSize).contains(ids.count) else {
            throw GreenroomError(.invalidParameterValue, "userIds must hold 1–\(Limits.maxPageSize) ids")
        }
    }

    // MARK: Preferences

    package func setInvitationPreference(_ userId: String, _ preference: InvitationPreference) async throws -> InvitationPreference {
        try await events.transact { transaction in
            try await transaction.save(ChatPreferenceRecord(userId: userId, autoAcceptInvitations: preference.autoAccept))
            return preference
        }
    }

    package func invitationPreference(_ userId: String) async throws -> InvitationPreference {
        InvitationPreference(autoAccept: try await Self.autoAccepts(storage, userId))
    }
}
