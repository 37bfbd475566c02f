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
        /// Every event the batch deferred, in order; those from `sentEvents` on are not sent yet.
        var events: [(event: StreamEvent, key: String?)] = []
        var sentEvents = 0
        /// The current step's savepoint: its name, and whether it was sent.
        var savepoint: (name: String, sent: Bool)?
        /// While a step runs: what each record it changed was when it began (`.some(nil)`:
        /// not known then), and the events' two counts then. A failed step is undone from
        /// these alone, so a step costs what it changes, not a copy of all the batch knows.
        var undo: (records: [RecordKey: Entry?], events: Int, sentEvents: Int)?

        /// Sets what the transaction knows of `key` (`nil`: nothing), noting for the
        /// running step what it was before, once.
        mutating func set(_ key: RecordKey, _ entry: Entry?) {
            let old = if let entry { records.updateValue(entry, forKey: key) } else { records.removeValue(forKey: key) }
            if undo != nil, undo?.records[key] == nil { undo?.records[key] = .some(old) }
        }
    }

    package let state = Locked(State())

    /// The record as the transaction has it, if it read, prefetched or wrote it.
    package func known(_ key: RecordKey) -> Entry? { state.withLock { $0.records[key] } }

    package func remember(read record: Record) { state.withLock { $0.set(RecordKey(record), .read(record)) } }
    package func remember(absent key: RecordKey) { state.withLock { $0.set(key, .absent) } }
    package func write(_ record: Record) { state.withLock { $0.set(RecordKey(record), .written(record)) } }
    package func deferEvent(_ event: StreamEvent, key: String?) { state.withLock { $0.events.append((event, key)) } }

    /// Forgets a record; returns whether it was written and not sent.
    package func forget(_ key: RecordKey) -> Bool {
        state.withLock { state in
            let unsent = if case .written = state.records[key] { true } else { false }
            state.set(key, nil)
            return unsent
        }
    }

    /// Forgets every record of a kind in a scope (after they were deleted in the database).
    package func forgetAll(kind: String, scope: String) {
        state.withLock { state in
            // The keys first: changing the dictionary while iterating it would copy it whole.
            let keys = state.records.keys.filter { $0.kind == kind && $0.scope == scope }
            for key in keys { state.set(key, nil) }
        }
    }

    /// Takes the writes to send (sorted, so that nodes lock rows in one order) and marks
    /// the records as read.
    package func takeWrites() -> (records: [Record], events: [(event: StreamEvent, key: String?)]) {
        state.withLock { state in
            // The writes first: changing the dictionary while iterating it would copy it whole.
            let records = state.records.values.compactMap { entry -> Record? in
                if case .written(let record) = entry { record } else { nil }
            }
            for record in records { state.set(RecordKey(record), .read(record)) }
            let events = Array(state.events[state.sentEvents...])
            state.sentEvents = state.events.count
            return (records.sorted { RecordKey($0) < RecordKey($1) }, events)
        }
    }

    // MARK: Steps

    package func stepBegins(_ savepoint: String) {
        state.withLock { state in
            state.savepoint = (savepoint, false)
            state.undo = ([:], state.events.count, state.sentEvents)
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
            if let undo = state.undo {
                for (key, entry) in undo.records { state.records[key] = entry }
                state.events.removeSubrange(undo.events...)
                state.sentEvents = undo.sentEvents
            }
            defer { state.savepoint = nil; state.undo = nil }
            return state.savepoint?.sent == true ? state.savepoint?.name : nil
        }
    }

    /// The step succeeded: the savepoint to release, if it was sent.
    package func stepSucceeded() -> String? {
        state.withLock { state in
            defer { state.savepoint = nil; state.undo = nil }
            return state.savepoint?.sent == true ? state.savepoint?.name : nil
        }
    }
}

extension PostgresTransaction {
    /// Rows per multi-row statement: PostgreSQL takes at most 65,535 parameters.
    package static let rowsPerStatement = 1_000

    /// Reads (and locks, in key order) the records the batch's steps said they will read,
    /// remembering which are missing, then creates (when new) and locks the streams they
    /// said they will append to, in name order: in one statement, one round trip, when the
    /// records are at most a thousand (``rowsPerStatement``), the streams locked with the
    /// last thousand otherwise.
    ///
    /// A node's batch makes its round trips one after another on the writer's connection,
    /// so each one is part of what every batch costs (``PostgresWriter``).
    package func prefetch(_ keys: Set<RecordKey>, lockingStreams names: Set<String>) async throws {
        let sorted = keys.sorted()
        let streams = names.sorted()
        var start = 0
        repeat {
            let end = min(start + Self.rowsPerStatement, sorted.count)
            let chunk = sorted[start..<end]
            let locking = end == sorted.count ? streams : []
            start = end
            guard !chunk.isEmpty || !locking.isEmpty else { continue }
            var missing = Set(chunk)
            for row in try await lockRows(chunk, streams: locking) {
                switch row {
                case .record(let record):
                    deferred.remember(read: record)
                    missing.remove(RecordKey(record))
                case .stream(let name, let info):
                    try await batch.lock(name) { _ in info }
                }
            }
            for key in missing { deferred.remember(absent: key) }
        } while start < sorted.count
    }

    /// A row of ``lockRows(_:streams:)``.
    package enum LockedRow {
        case record(Record)
        case stream(name: String, info: StreamInfo)
    }

    /// Reads and locks the records at `keys` (those that exist), in key order, then creates
    /// the rows of `streams` where new and locks them, in the order given, in one
    /// statement: a stream's row is made when new, else locked by the no-op update, which
    /// returns it as it is.
    package func lockRows(_ keys: some Collection<RecordKey>, streams: [String]) async throws -> [LockedRow] {
        let (kinds, scopes, ids) = (keys.map(\.kind), keys.map(\.scope), keys.map(\.id))
        let epochs = streams.map { _ in RandomHex.string(bytes: 4) }
        // The streams' insert reads the count of the locked records, so PostgreSQL locks
        // every record before any stream (an InitPlan, run before the insert's first row),
        // the order every node keeps.
        let rows = try await run("""
            WITH r AS (
              SELECT r.kind, r.scope, r.id, r.sort, r.tag, r.data FROM records r
              JOIN unnest(\(kinds)::text[], \(scopes)::text[], \(ids)::text[]) AS k(kind, scope, id)
                ON r.kind = k.kind COLLATE "C" AND r.scope = k.scope COLLATE "C" AND r.id = k.id COLLATE "C"
              ORDER BY r.kind, r.scope, r.id FOR UPDATE OF r),
            s AS (
              INSERT INTO streams (name, epoch, head, trimmed)
              SELECT name, epoch, 0, 0 FROM unnest(\(streams)::text[], \(epochs)::text[]) WITH ORDINALITY AS s(name, epoch, position)
              WHERE (SELECT count(*) FROM r) >= 0
              ORDER BY position
              ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING name, epoch, head, trimmed)
            SELECT true, kind, scope, id, sort, tag, data, 0::int8 FROM r
            UNION ALL
            SELECT false, name, epoch, '', head, '', '', trimmed FROM s
            """)
        return try rows.map { row in
            let (isRecord, kind, scope, id, sort, tag, data, trimmed) =
                try row.decode((Bool, String, String, String, Int64, String, String, Int64).self)
            if isRecord { return .record(Record(kind: kind, scope: scope, id: id, sort: sort, tag: tag, data: data)) }
            return .stream(name: kind, info: StreamInfo(epoch: scope, head: UInt64(clamping: sort), trimmed: UInt64(clamping: trimmed)))
        }
    }

    /// Runs a statement that changes the database, after the current step's savepoint.
    package func change(_ query: PostgresQuery) async throws -> [PostgresRow] {
        if let savepoint = deferred.savepointToSend() {
            _ = try await run(PostgresQuery(unsafeSQL: "SAVEPOINT \(savepoint)"))
        }
        return try await run(query)
    }

    /// Sends the deferred writes (records as upserts, events as inserts, their
    /// notifications) and sets the `heads` of the streams a batch touched, in one statement.
    ///
    /// Every statement is a round trip on the batch's connection, so it is one: a
    /// data-modifying `WITH` clause each for the records, the events and the heads, and the
    /// notifications in its `SELECT` (sent by PostgreSQL at the commit, in the order of the
    /// array). They touch different tables, so none needs to see another's rows. Each
    /// column is one array parameter (`unnest`), so the statement's text is the same
    /// whatever the batch holds, and PostgreSQL parses a few parameters, not six a row.
    package func flush(heads: [(name: String, info: StreamInfo)] = []) async throws {
        let (records, events) = deferred.takeWrites()
        guard !records.isEmpty || !events.isEmpty || !heads.isEmpty else { return }
        var statement = CombinedWrite()
        statement.upsert(records)
        try statement.insert(events, batch: batch)
        statement.setHeads(heads)
        _ = try await change(statement.query())
    }
}

/// One statement of a batch's writes: each part a data-modifying `WITH` clause whose rows
/// are array parameters, the notifications of its events its `SELECT` (see
/// ``PostgresTransaction/flush(heads:)``).
struct CombinedWrite {
    private var bindings = PostgresBindings()
    private var clauses: [String] = []
    private var notices: [String] = []

    /// The next parameter's placeholder, after binding `values` to it.
    private mutating func bind<Element: PostgresArrayEncodable & PostgresNonThrowingEncodable>(_ values: [Element]) -> String {
        bindings.append(values)
        return "$\(bindings.count)"
    }

    /// The next parameter's placeholder, after binding `value` to it.
    private mutating func bind(_ value: String) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    /// An optional column, as two arrays (its values, empty for `nil`, and whether each is
    /// there): the expression of its value at the row numbered `row` (from 1).
    private mutating func bind(_ values: [String?], row: String) -> String {
        let text = bind(values.map { $0 ?? "" })
        let present = bind(values.map { $0 != nil })
        return "CASE WHEN (\(present)::bool[])[\(row)] THEN (\(text)::text[])[\(row)] END"
    }

    /// Upserts `records`.
    mutating func upsert(_ records: [Record]) {
        guard !records.isEmpty else { return }
        let columns = [bind(records.map(\.kind)) + "::text[]", bind(records.map(\.scope)) + "::text[]", bind(records.map(\.id)) + "::text[]",
                       bind(records.map(\.sort)) + "::int8[]", bind(records.map(\.tag)) + "::text[]", bind(records.map(\.data)) + "::text[]"]
        clauses.append("""
            INSERT INTO records (kind, scope, id, sort, tag, data) SELECT * FROM unnest(\(columns.joined(separator: ", ")))
            ON CONFLICT (kind, scope, id) DO UPDATE SET sort = excluded.sort, tag = excluded.tag, data = excluded.data
            """)
    }

    /// Inserts `events` (with their idempotency keys) and notifies the nodes of them.
    mutating func insert(_ events: [(event: StreamEvent, key: String?)], batch: BatchState) throws {
        guard !events.isEmpty else { return }
        var data: [String] = []
        for (event, _) in events {
            // The data's text is written once, for its column and its notification.
            let json = try event.data.jsonBytes()
            data.append(String(decoding: json, as: UTF8.self))
            notices.append(PostgresStorage.notifyPayload(event, dataJSON: json, trace: batch.trace(of: event)))
        }
        let columns = [bind(events.map(\.event.stream)) + "::text[]", bind(events.map { Int64($0.event.offset) }) + "::int8[]",
                       bind(events.map(\.event.type)) + "::text[]", bind(data) + "::text[]",
                       bind(events.map(\.event.at.timeIntervalSince1970)) + "::float8[]"]
        let key = bind(events.map(\.key), row: "e.i")
        let audience = bind(events.map(\.event.storedAudience), row: "e.i")
        let revokes = bind(events.map(\.event.storedRevokes), row: "e.i")
        clauses.append("""
            INSERT INTO events (stream, seq, type, data, at, idem_key, audience, revokes)
            SELECT e.stream, e.seq, e.type, e.data, e.at, \(key), \(audience), \(revokes)
            FROM unnest(\(columns.joined(separator: ", "))) WITH ORDINALITY AS e(stream, seq, type, data, at, i)
            """)
    }

    /// Sets the epoch, head and trim mark of each stream in `heads`.
    mutating func setHeads(_ heads: [(name: String, info: StreamInfo)]) {
        guard !heads.isEmpty else { return }
        let columns = [bind(heads.map(\.name)) + "::text[]", bind(heads.map(\.info.epoch)) + "::text[]",
                       bind(heads.map { Int64($0.info.head) }) + "::int8[]", bind(heads.map { Int64($0.info.trimmed) }) + "::int8[]"]
        clauses.append("""
            UPDATE streams SET epoch = v.epoch, head = v.head, trimmed = v.trimmed
            FROM unnest(\(columns.joined(separator: ", "))) AS v(name, epoch, head, trimmed)
            WHERE streams.name = v.name
            """)
    }

    /// The statement: its clauses, then its notifications (or nothing) as its `SELECT`.
    mutating func query() -> PostgresQuery {
        let with = clauses.enumerated().map { "w\($0.offset) AS (\($0.element))" }.joined(separator: ",\n")
        var select = "SELECT 1"
        if !notices.isEmpty {
            let channel = bind(PostgresStorage.notifyChannel)
            select = "SELECT pg_notify(\(channel), payload) FROM unnest(\(bind(notices))::text[]) AS payload"
        }
        return PostgresQuery(unsafeSQL: with.isEmpty ? select : "WITH \(with)\n\(select)", binds: bindings)
    }
}
