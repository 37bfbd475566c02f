import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A member's delivery position, in its channel's scope, sorted by it: the last message
/// that reached one of its devices (`channel.markDelivered`). Kept while the member
/// belongs to the channel.
package struct DeliveryRecord: StoredRecord {
    package static let recordKind = "delivery"
    package var channelId: ChannelId
    package var userId: String
    package var sequence: Int64
    package var messageId: String
    package var at: Date

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { userId }
    package var recordSort: Int64 { sequence }
}

/// The read and delivery receipts of big channels waiting for their batch, by channel;
/// a member's later position replaces its earlier one.
package final class ReceiptBatches: Sendable {
    package struct Batch: Sendable {
        package var reads: [String: ChannelRead] = [:]
        package var deliveries: [String: ChannelRead] = [:]
    }
    private let pending = Locked<[ChannelId: Batch]>([:])

    package init() {}

    /// Keeps a receipt for the next batch.
    package func add(_ read: ChannelRead, delivered: Bool) {
        pending.withLock { pending in
            if delivered {
                pending[read.channelId, default: Batch()].deliveries[read.userId] = read
            } else {
                pending[read.channelId, default: Batch()].reads[read.userId] = read
            }
        }
    }

    /// Takes every waiting receipt out.
    package func take() -> [ChannelId: Batch] {
        pending.withLock { pending in
            defer { pending = [:] }
            return pending
        }
    }
}

extension ChatService {
    /// Whether a channel's receipts are announced in batches (it has more joined members
    /// than ``receiptBatchMembers``).
    func batchesReceipts(_ record: ChannelRecord) -> Bool { record.channel.memberCount > receiptBatchMembers }

    /// Moves the caller's delivery position forward to a message and tells the channel
    /// (`message.delivered`; batched in a big channel), in one transaction. A message
    /// already read or delivered changes nothing. Members only.
    package func markDelivered(_ args: MarkDeliveredArgs, by userId: String) async throws -> ChannelRead {
        let id = args.channelId
        let (read, batched) = try await events.transact(streams: [id.stream]) { transaction -> (ChannelRead, Bool) in
            let record = try await Self.channel(transaction, id)
            try await Self.requireJoined(transaction, id, userId)
            let message = try await Self.message(transaction, id, args.messageId)
            var read = try await Self.readPosition(transaction, id, userId)
            let delivered = try await transaction.load(DeliveryRecord.self, scope: id.rawValue, id: userId)
            read.lastDeliveredSequence = delivered?.sequence
            read.lastDeliveredAt = delivered?.at
            guard !read.hasReceived(message.sequence) else { return (read, false) }
            let now = Date.wireNow
            try await transaction.save(DeliveryRecord(channelId: id, userId: userId, sequence: message.sequence, messageId: message.id, at: now))
            read.lastDeliveredSequence = message.sequence
            read.lastDeliveredAt = now
            guard !batchesReceipts(record) else { return (read, true) }
            _ = try await transaction.append([try Self.event(ChatEventType.messageDelivered, on: id.stream,
                                                             ChatEvent(type: "", channelId: id, actorId: userId, read: read))])
            return (read, false)
        }
        if batched { receipts.add(read, delivered: true) }
        return read
    }

    /// Announces the batched receipts: per channel, one `message.read` with every read
    /// position that moved and one `message.delivered` with every delivery, in one
    /// transaction (a channel deleted meanwhile announces nothing).
    package func flushReceipts() async throws {
        let batches = receipts.take()
        for (channel, batch) in batches.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try await events.transact(streams: [channel.stream]) { transaction in
                guard try await transaction.load(ChannelRecord.self, id: channel.rawValue) != nil else { return }
                var appends: [EventAppend] = []
                for (type, positions) in [(ChatEventType.messageRead, batch.reads), (ChatEventType.messageDelivered, batch.deliveries)]
                where !positions.isEmpty {
                    let reads = positions.values.sorted { $0.userId < $1.userId }
                    appends.append(try Self.event(type, on: channel.stream, ChatEvent(type: "", channelId: channel, reads: reads)))
                }
                _ = try await transaction.append(appends)
            }
        }
    }

    /// Sets the delivery positions of `reads` (a page of one channel's reads).
    static func withDeliveries(_ reads: [ChannelRead], _ channel: ChannelId, _ reader: any RecordReading) async throws -> [ChannelRead] {
        guard !reads.isEmpty else { return reads }
        var query = RecordQuery(kind: DeliveryRecord.recordKind, scope: channel.rawValue, limit: reads.count)
        query.ids = reads.map(\.userId)
        let delivered = Dictionary(uniqueKeysWithValues: try await reader.list(DeliveryRecord.self, query).map { ($0.userId, $0) })
        return reads.map { read in
            var read = read
            if let delivery = delivered[read.userId], delivery.sequence > read.lastReadSequence {
                read.lastDeliveredSequence = delivery.sequence
                read.lastDeliveredAt = delivery.at
            }
            return read
        }
    }
}
