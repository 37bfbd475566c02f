import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

/// What a PostgreSQL write transaction holds back until it has to send it.
///
/// Every statement is a round trip, and a write batch runs its steps one after another on
/// one connection, so round trips are what a batch costs: a chat message took eleven (a
/// savepoint, three locked reads, two record writes, the stream's row made and locked, the
/// event, its notification, the release; about 0.5 ms each on this 2-core machine under
/// load), and `bench store` stored 245–273 messages a second on a local PostgreSQL against
/// 4,000–6,000 on SQLite. Here a transaction instead
/// - reads, in one statement for the batch, the records its steps named (`WriteStep.prefetch`)
///   and locks the streams they named (`WriteStep.streams`), in key order;
/// - keeps what it read (locked) and what it wrote, so a record read or written earlier in
///   the batch is read again without the database (a channel advanced by every message);
/// - sends record writes, event inserts and notifications at the end, each kind as one
///   multi-row statement (or before a query whose answer they could change);
/// - opens a step's savepoint only before the step's first statement that writes: a step
///   that only reads and defers needs none, since undoing it is forgetting what it deferred.
///
/// With it `bench store` (64 in flight) stores 1,899–2,298 messages a second, 8–9× as many,
/// and 3,238 with 256 in flight (BENCHMARKS.md).
package final class DeferredWrites: Sendable {
    /// A record as the transaction knows it: read (and locked) from the database, found
    /// missing by the batch's prefetch, or written and not sent yet.
    package enum Entry {
        case read(Record)
        case absent
        case written(Record)

        var record: Record? {
            switch self {
            case .read(let record), .written(let record): record
            case .absent: nil
            }
        }
    }

    package struct State {
        var records: [RecordKey: Entry] = [:]
        var events: [(event: StreamEvent, key: String?)] = []
        /// The current step's savepoint: its name, and whether it was sent.
        var savepoint: (name: String, sent: Bool)?
        /// What the transaction knew when the current step began.
        var atStepStart: (records: [RecordKey: Entry], events: [(event: StreamEvent, key: String?)])?
    }

    package let state = Locked(State())

    /// The record as the transaction has it, if it read, prefetched or wrote it.
    package func known(_ key: RecordKey) -> Entry? { state.withLock { $0.records[key] } }

    package func remember(read record: Record) { state.withLock { $0.records[RecordKey(record)] = .read(record) } }
    package func remember(absent key: RecordKey) { state.withLock { $0.records[key] = .absent } }
    package func write(_ record: Record) { state.withLock { $0.records[RecordKey(record)] = .written(record) } }
    package func deferEvent(_ event: StreamEvent, key: String?) { state.withLock { $0.events.append((event, key)) } }

    /// Forgets a record; returns whether it was written and not sent.
    package func forget(_ key: RecordKey) -> Bool {
        state.withLock { state in
            guard case .written = state.records.removeValue(forKey: key) else { return false }
            return true
        }
    }

    /// Forgets every record of a kind in a scope (after they were deleted in the database).
    package func forgetAll(kind: String, scope: String) {
        state.withLock { state in state.records = state.records.filter { $0.key.kind != kind || $0.key.scope != scope } }
    }

    /// Takes the writes to send (sorted, so that nodes lock rows in one order) and marks
    /// the records as read.
    package func takeWrites() -> (records: [Record], events: [(event: StreamEvent, key: String?)]) {
        state.withLock { state in
            var records: [Record] = []
            for (key, entry) in state.records {
                if case .written(let record) = entry {
                    records.append(record)
                    state.records[key] = .read(record)
                }
            }
            let events = state.events
            state.events = []
            return (records.sorted { RecordKey($0) < RecordKey($1) }, events)
        }
    }

    package var hasWrites: Bool {
        state.withLock { state in !state.events.isEmpty || state.records.values.contains { if case .written = $0 { true } else { false } } }
    }

    // MARK: Steps

    package func stepBegins(_ savepoint: String) {
        state.withLock { state in
            state.savepoint = (savepoint, false)
            state.atStepStart = (state.records, state.events)
        }
    }

    /// The savepoint to send before the step's first write, once.
    package func savepointToSend() -> String? {
        state.withLock { state in
            guard let savepoint = state.savepoint, !savepoint.sent else { return nil }
            state.savepoint?.sent = true
            return savepoint.name
        }
    }

    /// The step failed: back to what the transaction knew when it began (what it sent since
    /// is undone by rolling back to its savepoint, which the answer names if it was sent).
    package func stepFailed() -> String? {
        state.withLock { state in
            if let start = state.atStepStart {
                state.records = start.records
                state.events = start.events
            }
            defer { state.savepoint = nil; state.atStepStart = nil }
            return state.savepoint?.sent == true ? state.savepoint?.name : nil
        }
    }

    /// The step succeeded: the savepoint to release, if it was sent.
    package func stepSucceeded() -> String? {
        state.withLock { state in
            defer { state.savepoint = nil; state.atStepStart = nil }
            return state.savepoint?.sent == true ? state.savepoint?.name : nil
        }
    }
}

extension PostgresTransaction {
    /// Rows per multi-row statement: PostgreSQL takes at most 65,535 parameters.
    package static let rowsPerStatement = 1_000

    /// Creates (when new) and locks the streams the batch's steps said they will append to,
    /// in name order, in one statement.
    package func lockStreams(_ names: Set<String>) async throws {
        guard !names.isEmpty else { return }
        let locked = try await raceAware { try await self.storage.lockStreams(names.sorted(), on: self.connection) }
        for (name, info) in locked {
            try await batch.lock(name) { _ in info }
        }
    }

    /// Reads (and locks, in key order) the records the batch's steps said they will read,
    /// in one statement per thousand; remembers which are missing.
    package func prefetch(_ keys: Set<RecordKey>) async throws {
        let sorted = keys.sorted()
        for start in stride(from: 0, to: sorted.count, by: Self.rowsPerStatement) {
            let chunk = sorted[start..<min(start + Self.rowsPerStatement, sorted.count)]
            let (kinds, scopes, ids) = (chunk.map(\.kind), chunk.map(\.scope), chunk.map(\.id))
            let rows = try await run("""
                SELECT r.kind, r.scope, r.id, r.sort, r.tag, r.data FROM records r
                JOIN unnest(\(kinds)::text[], \(scopes)::text[], \(ids)::text[]) AS k(kind, scope, id)
                  ON r.kind = k.kind COLLATE "C" AND r.scope = k.scope COLLATE "C" AND r.id = k.id COLLATE "C"
                ORDER BY r.kind, r.scope, r.id FOR UPDATE OF r
                """)
            var missing = Set(chunk)
            for row in rows {
                let record = try PostgresStorage.decodeRecord(row)
                deferred.remember(read: record)
                missing.remove(RecordKey(record))
            }
            for key in missing { deferred.remember(absent: key) }
        }
    }

    /// Runs a statement that changes the database, after the current step's savepoint.
    package func change(_ query: PostgresQuery) async throws -> [PostgresRow] {
        if let savepoint = deferred.savepointToSend() {
            _ = try await run(PostgresQuery(unsafeSQL: "SAVEPOINT \(savepoint)"))
        }
        return try await run(query)
    }

    /// Sends the deferred writes: records as multi-row upserts, events as multi-row inserts,
    /// their notifications in one statement.
    package func flush() async throws {
        guard deferred.hasWrites else { return }
        let (records, events) = deferred.takeWrites()
        for start in stride(from: 0, to: records.count, by: Self.rowsPerStatement) {
            let chunk = records[start..<min(start + Self.rowsPerStatement, records.count)]
            var bindings = PostgresBindings(capacity: chunk.count * 6)
            var rows: [String] = []
            for (index, record) in chunk.enumerated() {
                let base = index * 6
                rows.append("($\(base + 1), $\(base + 2), $\(base + 3), $\(base + 4), $\(base + 5), $\(base + 6))")
                bindings.append(record.kind)
                bindings.append(record.scope)
                bindings.append(record.id)
                bindings.append(record.sort)
                bindings.append(record.tag)
                bindings.append(record.data)
            }
            _ = try await change(PostgresQuery(unsafeSQL: """
                INSERT INTO records (kind, scope, id, sort, tag, data) VALUES \(rows.joined(separator: ", "))
                ON CONFLICT (kind, scope, id) DO UPDATE SET sort = excluded.sort, tag = excluded.tag, data = excluded.data
                """, binds: bindings))
        }
        for start in stride(from: 0, to: events.count, by: Self.rowsPerStatement) {
            let chunk = events[start..<min(start + Self.rowsPerStatement, events.count)]
            var bindings = PostgresBindings(capacity: chunk.count * 8)
            var rows: [String] = []
            var notices: [String] = []
            for (index, (event, key)) in chunk.enumerated() {
                let base = index * 8
                rows.append("(" + (1...8).map { "$\(base + $0)" }.joined(separator: ", ") + ")")
                bindings.append(event.stream)
                bindings.append(Int64(event.offset))
                bindings.append(event.type)
                bindings.append(try event.data.jsonString())
                bindings.append(event.at.timeIntervalSince1970)
                bindings.append(key)
                bindings.append(event.storedAudience)
                bindings.append(event.storedRevokes)
                notices.append(PostgresStorage.notifyPayload(event, trace: batch.trace(of: event)))
            }
            _ = try await change(PostgresQuery(unsafeSQL: """
                INSERT INTO events (stream, seq, type, data, at, idem_key, audience, revokes) VALUES \(rows.joined(separator: ", "))
                """, binds: bindings))
            // In the order of the array: listeners get them in offset order.
            _ = try await change("SELECT pg_notify(\(PostgresStorage.notifyChannel), payload) FROM unnest(\(notices)::text[]) AS payload")
        }
    }
}
