import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Pins or unpins a message; operators only. The message records who pinned it and
    /// when, and the channel hears `message.updated`, in one transaction with the pin's
    /// record. A deleted message cannot be pinned; deleting a pinned one unpins it.
    package func setPinned(_ ref: MessageRef, _ pinned: Bool, by userId: String) async throws -> ChatMessage {
        try await mutateMessage(ref, by: userId, event: ChatEventType.messageUpdated, then: { transaction, message in
            guard let pinnedAt = message.pinnedAt else {
                try await transaction.remove(PinRecord.self, scope: ref.channelId.rawValue, id: message.id)
                return nil
            }
            let count = try await transaction.countRecords(RecordQuery(kind: PinRecord.recordKind, scope: ref.channelId.rawValue))
            guard count < Limits.maxPinnedMessages else {
                throw GreenroomError(.invalidParameterValue, "channel \(ref.channelId) has \(Limits.maxPinnedMessages) pinned messages; unpin one first")
            }
            try await transaction.save(PinRecord(channelId: ref.channelId, messageId: message.id, pinnedAt: pinnedAt))
            return nil
        }) { message, member in
            guard member?.isOperator == true else {
                throw GreenroomError(.operatorRequired, "only an operator of channel \(ref.channelId) may pin or unpin messages")
            }
            guard pinned != (message.pinnedAt != nil) else { return nil }
            message.pinnedAt = pinned ? Date.wireNow : nil
            message.pinnedBy = pinned ? member?.userId : nil
            return nil
        }
    }

    /// A page of the channel's pinned messages, the latest pinned first. Members only.
    package func pinnedMessages(_ args: PinnedMessagesArgs, by reader: String) async throws -> Page<ChatMessage> {
        let limit = try Paging.limit(args.limit)
        let id = args.channelId
        _ = try await Self.channel(storage, id)
        try await Self.requireJoined(storage, id, reader)
        var query = RecordQuery(kind: PinRecord.recordKind, scope: id.rawValue)
        query.descending = true
        query.after = try args.cursor.map(RecordCursor.decode)
        let (pins, next) = try await storage.page(PinRecord.self, query, limit: limit)
        var messages = RecordQuery(kind: MessageRecord.recordKind, scope: id.rawValue, limit: limit)
        messages.ids = pins.map(\.messageId)
        let byId = Dictionary(uniqueKeysWithValues: try await storage.list(MessageRecord.self, messages).map { ($0.message.id, $0.message) })
        return Page(items: pins.compactMap { byId[$0.messageId] }, next: next)
    }
}
