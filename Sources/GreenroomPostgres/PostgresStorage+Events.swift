import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

extension PostgresStorage {
    /// What a notification carries: the whole event when it is small and has no routing,
    /// else its position; with `trace` (a W3C `traceparent`), that too, for the other nodes'
    /// delivery spans. `dataJSON` is the event's data as JSON already written (the text the
    /// log keeps), which the payload carries as it is.
    package static func notifyPayload(_ event: StreamEvent, dataJSON: [UInt8], trace: String? = nil) -> String {
        // An event with routing (an audience, a revocation) goes as a hint: the wire form
        // does not carry it, and the log does.
        let traceMember = trace.map { #""traceparent":"\#($0)","# } ?? ""
        if event.audience == nil, event.revokes == nil,
           let data = try? event.wireJSON(dataJSON: dataJSON),
           data.count + traceMember.utf8.count <= maxNotifyPayload, data.first == UInt8(ascii: "{") {
            // The event's object with the trace as its first member: a traceparent is hex
            // digits and dashes, which need no escaping.
            guard !traceMember.isEmpty else { return String(decoding: data, as: UTF8.self) }
            return "{" + traceMember + String(decoding: data.dropFirst(), as: UTF8.self)
        }
        var hint: [String: RawJSON] = ["stream": .string(event.stream), "offset": .number(Double(event.offset))]
        if let trace { hint["traceparent"] = .string(trace) }
        return (try? RawJSON.dictionary(hint).jsonString()) ?? ""
    }

    package static func decodeEvent(_ row: PostgresRow, stream: String, epoch: String) throws -> StreamEvent {
        let (seq, type, data, at, audience, revokes) = try row.decode((Int64, String, String, Double, String?, String?).self)
        var event = StreamEvent(stream: stream, offset: UInt64(seq), epoch: epoch, type: type, data: try RawJSON(json: data), at: Date(timeIntervalSince1970: at))
        event.setRouting(audience: audience, revokes: revokes)
        return event
    }

    /// The state of a stream's log, creating the stream when it is new.
    public func streamInfo(_ stream: String) async throws -> StreamInfo {
        do {
            let rows = try await fetch("SELECT epoch, head, trimmed FROM streams WHERE name = \(stream)")
            if let row = rows.first {
                let (epoch, head, trimmed) = try row.decode((String, Int64, Int64).self)
                return StreamInfo(epoch: epoch, head: UInt64(head), trimmed: UInt64(trimmed))
            }
            let epoch = RandomHex.string(bytes: 4)
            try await fetch("INSERT INTO streams (name, epoch, head, trimmed) VALUES (\(stream), \(epoch), 0, 0) ON CONFLICT (name) DO NOTHING")
            return try await streamInfo(stream)
        } catch {
            throw storageError(error)
        }
    }

    /// Events after `offset`, oldest first.
    public func readEvents(stream: String, after offset: UInt64, limit: Int) async throws -> [StreamEvent] {
        let info = try await streamInfo(stream)
        let rows = try await fetch("SELECT seq, type, data, at, audience, revokes FROM events WHERE stream = \(stream) AND seq > \(Int64(clamping: offset)) ORDER BY seq LIMIT \(max(limit, 0))")
        return try rows.map { try Self.decodeEvent($0, stream: stream, epoch: info.epoch) }
    }

    /// Removes events written before `date`, moving each stream's trimmed mark.
    public func trimEvents(before date: Date) async throws -> Int {
        try await transaction { connection in
            let rows = try await connection.query(
                """
                WITH gone AS (DELETE FROM events WHERE at < \(date.timeIntervalSince1970) RETURNING stream, seq)
                SELECT stream, MAX(seq), COUNT(*) FROM gone GROUP BY stream
                """, logger: self.logger).collect()
            var removed = 0
            for row in rows {
                let (stream, last, count) = try row.decode((String, Int64, Int64).self)
                try await connection.query(
                    "UPDATE streams SET trimmed = GREATEST(trimmed, \(last)) WHERE name = \(stream)", logger: self.logger)
                removed += Int(count)
            }
            return removed
        }
    }
}
