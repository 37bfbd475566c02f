import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

extension PostgresStorage {
    /// What a notification carries: the whole event when it is small and has no routing,
    /// else its position; with `trace` (a W3C `traceparent`), that too, for the other nodes'
    /// delivery spans. `dataJSON` is the event's data as JSON already written (the text the
    /// log keeps), which the payload carries as it is. A whole event's payload begins with
    /// `origin` (the writing storage's ``origin``) when one is given, then the trace, then
    /// the event's own members as its wire JSON writes them
    /// (`{"origin":"…","traceparent":"…","at":…,"offset":…,"stream":…,"type":…}`): the
    /// writing node tells its own payloads from their first bytes and their position from
    /// their last (``ownEventPosition(_:prefix:)``), without reading the event between.
    package static func notifyPayload(_ event: StreamEvent, dataJSON: [UInt8], trace: String? = nil, origin: String = "") -> String {
        // An event with routing (an audience, a revocation) goes as a hint: the wire form
        // does not carry it, and the log does.
        if event.audience == nil, event.revokes == nil,
           let data = try? event.wireJSON(dataJSON: dataJSON), data.first == UInt8(ascii: "{") {
            // Origins and traceparents are hex digits and dashes, which need no escaping.
            var members = origin.isEmpty ? "" : #""origin":"\#(origin)","#
            if let trace { members += #""traceparent":"\#(trace)","# }
            if data.count + members.utf8.count <= maxNotifyPayload {
                guard !members.isEmpty else { return String(decoding: data, as: UTF8.self) }
                return "{" + members + String(decoding: data.dropFirst(), as: UTF8.self)
            }
        }
        var hint: [String: RawJSON] = ["stream": .string(event.stream), "offset": .number(Double(event.offset))]
        if let trace { hint["traceparent"] = .string(trace) }
        return (try? RawJSON.dictionary(hint).jsonString()) ?? ""
    }

    /// The first bytes of every whole event's payload that `origin` writes
    /// (``notifyPayload(_:dataJSON:trace:origin:)``).
    package static func ownPayloadPrefix(origin: String) -> [UInt8] {
        Array(#"{"origin":"\#(origin)","#.utf8)
    }

    /// The stream and offset of a whole event's payload that begins with `prefix`
    /// (``ownPayloadPrefix(origin:)``), read from its end, where an event's wire JSON
    /// writes them (`…,"offset":N,"stream":"…","type":"…"}`); `nil` for any other payload
    /// (another node's, a hint, a signal), which is then read whole.
    package static func ownEventPosition(_ payload: String, prefix: [UInt8]) -> (stream: String, offset: UInt64)? {
        var payload = payload
        return payload.withUTF8 { bytes -> (stream: String, offset: UInt64)? in
            guard bytes.count > prefix.count + 2, bytes.starts(with: prefix), bytes[bytes.count - 1] == UInt8(ascii: "}"),
                  let type = quotedString(bytes, closing: bytes.count - 2, after: #","type":"#),
                  let stream = quotedString(bytes, closing: type.memberStart - 1, after: #","stream":"#) else { return nil }
            let offsetKey = Array(#","offset":"#.utf8)
            var first = stream.memberStart
            while first > prefix.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[first - 1]) { first -= 1 }
            guard first < stream.memberStart, first - offsetKey.count >= prefix.count,
                  bytes[(first - offsetKey.count)..<first].elementsEqual(offsetKey),
                  let offset = UInt64(String(decoding: bytes[first..<stream.memberStart], as: UTF8.self)) else { return nil }
            let text = bytes[stream.quote...stream.closing]
            let name: String
            if text.contains(UInt8(ascii: "\\")) {
                guard let unescaped = (try? RawJSON(json: String(decoding: text, as: UTF8.self)))?.stringValue else { return nil }
                name = unescaped
            } else {
                name = String(decoding: text.dropFirst().dropLast(), as: UTF8.self)
            }
            return (name, offset)
        }
    }

    /// The JSON string whose closing quote is at `closing` and whose member's key comes
    /// before it as `key` (`,"name":`): where its opening quote and its member (the comma)
    /// begin. Read backwards: a quote inside a string is always escaped, so the opening
    /// quote is the nearest one before that an even number of backslashes precede.
    private static func quotedString(_ bytes: UnsafeBufferPointer<UInt8>, closing: Int, after key: String)
        -> (quote: Int, closing: Int, memberStart: Int)? {
        guard closing > 0, closing < bytes.count, bytes[closing] == UInt8(ascii: "\"") else { return nil }
        var index = closing - 1
        while index >= 0 {
            if bytes[index] == UInt8(ascii: "\"") {
                var backslashes = 0
                while index - backslashes - 1 >= 0, bytes[index - backslashes - 1] == UInt8(ascii: "\\") { backslashes += 1 }
                if backslashes % 2 == 0 { break }
            }
            index -= 1
        }
        let key = Array(key.utf8)
        guard index >= key.count, bytes[(index - key.count)..<index].elementsEqual(key) else { return nil }
        return (index, closing, index - key.count)
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
