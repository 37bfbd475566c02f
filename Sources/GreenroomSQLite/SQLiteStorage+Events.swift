import Foundation
import GreenroomProtocol
import GreenroomStorage

extension SQLiteStorage {
    package static func newEpoch() -> String { RandomHex.string(bytes: 4) }

    /// The columns ``decodeEvent(_:stream:epoch:)`` reads.
    package static let eventColumns = "seq, type, data, at, audience, revokes"

    package static func decodeEvent(_ row: SQLRow, stream: String, epoch: String) throws -> StreamEvent {
        var event = StreamEvent(
            stream: stream, offset: try row.offset("seq"), epoch: epoch, type: try row.string("type"),
            data: try RawJSON(json: try row.string("data")), at: try row.date("at"))
        event.setRouting(audience: row.optionalString("audience"), revokes: row.optionalString("revokes"))
        return event
    }

    package func loadOrCreateStream(_ stream: String, on connection: SQLiteHandle) throws -> StreamInfo {
        let rows = try connection.query("SELECT epoch, head, trimmed FROM streams WHERE name = ?", [.text(stream)])
        if let row = rows.first {
            return StreamInfo(epoch: try row.string("epoch"), head: try row.offset("head"), trimmed: try row.offset("trimmed"))
        }
        let info = StreamInfo(epoch: Self.newEpoch(), head: 0, trimmed: 0)
        try connection.query(
            "INSERT INTO streams (name, epoch, head, trimmed) VALUES (?, ?, 0, 0)", [.text(stream), .text(info.epoch)])
        return info
    }

    /// The state of a stream's log, creating the stream when it is new.
    public func streamInfo(_ stream: String) async throws -> StreamInfo {
        let rows = try await read { try $0.query("SELECT epoch, head, trimmed FROM streams WHERE name = ?", [.text(stream)]) }
        if let row = rows.first {
            return StreamInfo(epoch: try row.string("epoch"), head: try row.offset("head"), trimmed: try row.offset("trimmed"))
        }
        return try await write { try self.loadOrCreateStream(stream, on: self.writer) }
    }

    /// Events after `offset`, oldest first.
    public func readEvents(stream: String, after offset: UInt64, limit: Int) async throws -> [StreamEvent] {
        let info = try await streamInfo(stream)
        let rows = try await read {
            try $0.query(
                "SELECT \(Self.eventColumns) FROM events WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?",
                [.text(stream), .offset(offset), .integer(limit)])
        }
        return try rows.map { try Self.decodeEvent($0, stream: stream, epoch: info.epoch) }
    }

    /// Removes events written before `date`, moving each stream's trimmed mark.
    public func trimEvents(before date: Date) async throws -> Int {
        try await write {
            let rows = try self.writer.query(
                "SELECT stream, MAX(seq) AS last, COUNT(*) AS n FROM events WHERE at < ? GROUP BY stream", [.date(date)])
            var removed = 0
            for row in rows {
                let stream = try row.string("stream")
                let last = try row.offset("last")
                try self.writer.query("DELETE FROM events WHERE stream = ? AND seq <= ?", [.text(stream), .offset(last)])
                try self.writer.query(
                    "UPDATE streams SET trimmed = MAX(trimmed, ?) WHERE name = ?", [.offset(last), .text(stream)])
                removed += row.column("n")?.integer ?? 0
            }
            return removed
        }
    }
}
