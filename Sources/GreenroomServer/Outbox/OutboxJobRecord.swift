import Foundation
import GreenroomProtocol

/// A delivery still to make, to a webhook endpoint or to APNs: written in the transaction
/// that stores its event (the outbox), removed in the one that records its success (or
/// parks it).
///
/// Kept in its destination's scope with id `lane#…`, so that a destination's jobs list
/// grouped by lane and, within a lane, in order: a lane's first job is the only one of it
/// that is attempted. A webhook's lane is the event's stream (`stream#offset`, the offset
/// zero-padded); a push's is the device token (`token#stream#offset`), and a message's push
/// before it is fanned out to devices is in the stream's lane.
struct OutboxJobRecord: StoredRecord {
    static let recordKind = "outbox.job"
    /// The webhook endpoint's id, or ``PushSender/destinationId``.
    var endpointId: String
    var event: StreamEvent
    /// The device a push goes to; `nil` for a webhook, or a push not yet fanned out.
    var device: String? = nil
    /// What the device is sent, once fanned out.
    var push: PushMessage? = nil
    /// Attempts made so far.
    var attempts: Int = 0
    /// Not attempted before this.
    var dueAt: Date
    /// A node delivering it holds it until this (a dead node's hold runs out).
    var heldUntil: Date?
    /// What the last attempt got.
    var lastError: String?

    var recordScope: String { endpointId }
    var recordId: String { Self.id(lane: lane, stream: device == nil ? nil : event.stream, offset: event.offset) }
    /// The jobs of one lane go one at a time, in id order.
    var lane: String { device ?? event.stream }

    /// A job's id: its lane, the stream when it is not the lane, then the offset zero-padded
    /// to sort as numbers. (Neither a stream nor a token holds `#`.)
    static func id(lane: String, stream: String? = nil, offset: UInt64) -> String {
        let digits = String(offset)
        let padded = String(repeating: "0", count: max(0, 20 - digits.count)) + digits
        return lane + "#" + (stream.map { $0 + "#" } ?? "") + padded
    }

    /// The lowest job id of `lane` sorts just after this.
    static func before(lane: String) -> String { lane + "#" }

    /// Every job id of `lane` sorts before this, and every other lane's after it or before
    /// ``before(lane:)``: `$` sorts just after `#`, below any character of a stream name or token.
    static func after(lane: String) -> String { lane + "$" }
}
