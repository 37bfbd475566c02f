import Foundation
import GreenroomProtocol

/// The rules of appending a batch of events, shared by every storage backend: each event
/// takes its stream's next offset, and an idempotency key already used in the stream (in
/// the log or earlier in the batch) returns the first event instead of a new one.
package enum EventBatch {
    /// Appends `appends` in order. The backend supplies the streams' current state (locked
    /// for the transaction), a lookup of an idempotency key in the log, and the insert.
    package static func append(
        _ appends: [EventAppend],
        streams: inout [String: StreamInfo],
        findKey: (_ stream: String, _ key: String, _ epoch: String) async throws -> StreamEvent?,
        insert: (_ event: StreamEvent, _ key: String?) async throws -> Void
    ) async throws -> [AppendOutcome] {
        var outcomes: [AppendOutcome] = []
        outcomes.reserveCapacity(appends.count)
        var keys: [String: StreamEvent] = [:]
        let now = Date()
        for append in appends {
            guard var info = streams[append.stream] else {
                throw GreenroomServerError.storage("stream \(append.stream) was not loaded for the batch")
            }
            if let key = append.idempotencyKey {
                let batchKey = append.stream + "\u{0}" + key
                if let earlier = keys[batchKey] {
                    outcomes.append(AppendOutcome(event: earlier, duplicate: true))
                    continue
                }
                if let stored = try await findKey(append.stream, key, info.epoch) {
                    outcomes.append(AppendOutcome(event: stored, duplicate: true))
                    continue
                }
            }
            info.head += 1
            var event = StreamEvent(stream: append.stream, offset: info.head, epoch: info.epoch, type: append.type, data: append.data, at: now)
            event.audience = append.audience
            event.revokes = append.revokes
            try await insert(event, append.idempotencyKey)
            if let key = append.idempotencyKey { keys[append.stream + "\u{0}" + key] = event }
            streams[append.stream] = info
            outcomes.append(AppendOutcome(event: event, duplicate: false))
        }
        return outcomes
    }

    /// The trimmed mark a stream moves to when its log holds more than `retentionCount`
    /// events, or `nil` when it keeps them all.
    package static func trimMark(_ info: StreamInfo, retentionCount: UInt64) -> UInt64? {
        info.head > info.trimmed + retentionCount ? info.head - retentionCount : nil
    }
}

extension StreamEvent {
    /// The audience as an events row keeps it: the users' ids, one per line (`nil`: everyone).
    package var storedAudience: String? { audience.map { $0.sorted().joined(separator: "\n") } }
    /// The revocation as an events row keeps it.
    package var storedRevokes: String? { revokes?.stored }

    /// Sets the routing read from an events row.
    package mutating func setRouting(audience: String?, revokes: String?) {
        self.audience = audience.map { Set($0.split(separator: "\n").map(String.init)) }
        self.revokes = ReadRevocation(stored: revokes)
    }
}
