import Foundation
import GreenroomProtocol
import GreenroomStorage

/// A delivery still to make, to one destination (a webhook endpoint, APNs): written in the
/// transaction that stores its event (the outbox), removed in the one that records its
/// success (or parks it).
///
/// Kept in its destination's scope with id `lane#…`, so that a destination's jobs list
/// grouped by lane and, within a lane, in order: a lane's first job is the only one of it
/// that is attempted. A job's lane is its event's stream (`stream#offset`, the offset
/// zero-padded), unless the destination gave it one of its own (`lane#stream#offset`: a
/// push's device token, once a message's push is fanned out to devices).
package struct OutboxJobRecord: StoredRecord {
    package static let recordKind = "outbox.job"
    /// The destination (``OutboxDestination/id``).
    package var destinationId: String
    package var event: StreamEvent
    /// The job's own lane, when the destination gave it one; `nil` for the event's stream.
    package var ownLane: String? = nil
    /// What the destination attached to the job (a push's alert, for one device).
    package var payload: RawJSON? = nil
    /// Attempts made so far.
    package var attempts: Int = 0
    /// Not attempted before this.
    package var dueAt: Date
    /// A node delivering it holds it until this (a dead node's hold runs out).
    package var heldUntil: Date?
    /// What the last attempt got.
    package var lastError: String?

    /// A job for `event` to `destinationId`, in the event's stream's lane unless `ownLane`
    /// is given.
    package init(destinationId: String, event: StreamEvent, ownLane: String? = nil, payload: RawJSON? = nil, dueAt: Date) {
        self.destinationId = destinationId
        self.event = event
        self.ownLane = ownLane
        self.payload = payload
        self.dueAt = dueAt
    }

    package var recordScope: String { destinationId }
    package var recordId: String { Self.id(lane: lane, stream: ownLane == nil ? nil : event.stream, offset: event.offset) }
    /// The jobs of one lane go one at a time, in id order.
    package var lane: String { ownLane ?? event.stream }

    /// The keys the fields are stored under, as the jobs already queued carry them.
    package enum CodingKeys: String, CodingKey {
        case destinationId = "endpointId", event, ownLane = "device", payload = "push", attempts, dueAt, heldUntil, lastError
    }

    /// A job's id: its lane, the stream when it is not the lane, then the offset zero-padded
    /// to sort as numbers. (Neither a stream nor a token holds `#`.)
    package static func id(lane: String, stream: String? = nil, offset: UInt64) -> String {
        let digits = String(offset)
        let padded = String(repeating: "0", count: max(0, 20 - digits.count)) + digits
        return lane + "#" + (stream.map { $0 + "#" } ?? "") + padded
    }

    /// The lowest job id of `lane` sorts just after this.
    package static func before(lane: String) -> String { lane + "#" }

    /// Every job id of `lane` sorts before this, and every other lane's after it or before
    /// ``before(lane:)``: `$` sorts just after `#`, below any character of a stream name or token.
    package static func after(lane: String) -> String { lane + "$" }
}
