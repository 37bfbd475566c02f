import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// A deleted user's part of chat, in its deletion's transaction: it leaves every
    /// channel it belongs to or is invited to (its operator role goes with its membership;
    /// each channel hears `member.left` or `invitation.declined`, naming no actor, and the
    /// user reads the channel no more); its invitation preference, its channel bans, its
    /// blocks and the reports it made or that name it go. With
    /// `eraseMessages`, every message it sent is deleted first
    /// (``eraseMessages(of:memberOf:in:)``).
    package static func forget(_ deletion: UserDeletion, in transaction: any StorageTransaction) async throws {
        let userId = deletion.userId
        let memberships = try await transaction.list(
            MembershipRecord.self, RecordQuery(kind: MembershipRecord.recordKind, scope: userId, limit: 1_000_000))
        if deletion.eraseMessages {
            try await eraseMessages(of: userId, memberOf: memberships.map(\.member.channelId), in: transaction)
        }
        for membership in memberships {
            let id = membership.member.channelId
            guard let record = try await transaction.load(ChannelRecord.self, id: id.rawValue),
                  let member = try await Self.member(transaction, id, userId) else {
                try await transaction.remove(MembershipRecord.self, scope: userId, id: id.rawValue)
                continue
            }
            try await Self.depart(member, from: record, actorId: nil, in: transaction)
        }
        try await transaction.remove(ChatPreferenceRecord.self, id: userId)
        _ = try await transaction.deleteRecords(kind: SentInRecord.recordKind, scope: userId)
        try await forgetBans(of: userId, in: transaction)
        try await forgetBlocks(of: userId, in: transaction)
        try await forgetReports(of: userId, in: transaction)
    }

    /// Deletes every message `userId` sent that is not deleted yet, in every channel it sent
    /// in (``SentInRecord``; a member or not now) and in `memberOf`, the channels it belongs
    /// to (messages stored before sent-in records were kept), as `message.delete` deletes
    /// one: each is emptied, its copies in the channel's stored events too, and the channel
    /// hears `message.deleted` for it, naming no actor. A channel's messages are read a page
    /// at a time.
    package static func eraseMessages(of userId: String, memberOf: [ChannelId], in transaction: any StorageTransaction) async throws {
        let sentIn = try await transaction.list(SentInRecord.self, RecordQuery(kind: SentInRecord.recordKind, scope: userId, limit: 1_000_000))
        let channels = Set(sentIn.map(\.channelId) + memberOf).sorted { $0.rawValue < $1.rawValue }
        for channel in channels {
            guard try await transaction.load(ChannelRecord.self, id: channel.rawValue) != nil else { continue }
            var deleted: [ChatMessage] = []
            var query = RecordQuery(kind: MessageRecord.recordKind, scope: channel.rawValue, limit: 1_000)
            while true {
                let page = try await transaction.list(MessageRecord.self, query)
                for var record in page where record.message.senderId == userId && !record.message.isDeleted {
                    let attachments = record.message.attachments ?? []
                    empty(&record.message)
                    // The folders go with the sweep: this transaction is the user deletion's.
                    _ = try await ChatFiles.drop(filesOf: record.message, attachments, in: transaction)
                    record.message.updatedAt = record.message.deletedAt ?? Date.wireNow
                    try await transaction.save(record)
                    try await index(record.message, in: transaction)
                    deleted.append(record.message)
                }
                guard page.count == query.limit, let last = page.last else { break }
                query.sortAbove = last.message.sequence
            }
            guard !deleted.isEmpty else { continue }
            let byId = Dictionary(uniqueKeysWithValues: deleted.map { ($0.id, $0) })
            try await redact(byId, in: channel, containing: "\"\(userId)\"", transaction)
            let threads = try await forgetDeleted(deleted, in: channel, transaction)
            _ = try await transaction.append(try deleted.map { message in
                try event(ChatEventType.messageDeleted, on: channel.stream, ChatEvent(
                    type: "", channelId: channel, message: message, thread: message.threadParentId.flatMap { threads[$0] }))
            })
        }
    }
}
