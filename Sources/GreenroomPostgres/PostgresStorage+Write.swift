import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

extension PostgresStorage {
    /// How often a batch that lost a deadlock or serialization race to another node is retried.
    package static let batchAttempts = 4

    /// Runs the steps in one transaction (steps that ask for it in savepoints). Rows read
    /// in the transaction stay locked until it ends; streams are locked the first time a
    /// step appends to them. A batch PostgreSQL aborts to break a deadlock between nodes
    /// is run again.
    public func write(_ steps: [WriteStep], retentionCount: UInt64) async throws -> [StepOutcome] {
        var attempt = 1
        while true {
            do {
                return try await writeOnce(steps, retentionCount: retentionCount)
            } catch is StorageRaceLost {
                guard attempt < Self.batchAttempts else {
                    throw GreenroomError(.unavailable, "the database was too busy; try again")
                }
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int.random(in: 5...40)))
            }
        }
    }

    /// The writer's connection and thread (``PostgresWriter``): a batch runs there.
    public var writeExecutor: (any TaskExecutor)? { writer }

    private func writeOnce(_ steps: [WriteStep], retentionCount: UInt64) async throws -> [StepOutcome] {
        try await writeTransaction { connection in
            let transaction = PostgresTransaction(storage: self, connection: connection)
            let deferred = transaction.deferred
            try await transaction.prefetch(Set(steps.flatMap(\.prefetch)), lockingStreams: Set(steps.flatMap(\.streams)))
            // A step's savepoint is sent before its first write (DeferredWrites).
            let outcomes = try await BatchState.run(
                steps, in: transaction, batch: transaction.batch,
                savepoint: { deferred.stepBegins($0) },
                rollback: { _ in
                    if let sent = deferred.stepFailed() {
                        _ = try await transaction.run(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(sent)"))
                    }
                },
                release: { _ in
                    if let sent = deferred.stepSucceeded() {
                        _ = try await transaction.run(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(sent)"))
                    }
                })
            var heads: [(name: String, info: StreamInfo)] = []
            var trims: [(name: String, mark: UInt64)] = []
            for (name, var info) in transaction.batch.touchedStreams {
                if let mark = EventBatch.trimMark(info, retentionCount: retentionCount) {
                    info.trimmed = mark
                    trims.append((name, mark))
                }
                heads.append((name, info))
            }
            // The deferred writes and the streams' heads, in one statement.
            try await transaction.flush(heads: heads)
            // After the events are in, so that a trim reaches the batch's own events too.
            for (name, mark) in trims {
                _ = try await transaction.run("DELETE FROM events WHERE stream = \(name) AND seq <= \(Int64(mark))")
            }
            return outcomes
        }
    }

    // MARK: Records

    package static func query(_ sql: String, _ binds: [RecordSQL.Bind]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let text): bindings.append(text)
            case .integer(let value): bindings.append(value)
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    package static func decodeRecord(_ row: PostgresRow) throws -> Record {
        let (kind, scope, id, sort, tag, data) = try row.decode((String, String, String, Int64, String, String).self)
        return Record(kind: kind, scope: scope, id: id, sort: sort, tag: tag, data: data)
    }

    package static func recordQuery(kind: String, scope: String, id: String, lock: Bool) -> PostgresQuery {
        var query: PostgresQuery = "SELECT kind, scope, id, sort, tag, data FROM records WHERE kind = \(kind) AND scope = \(scope) AND id = \(id)"
        if lock { query.sql += " FOR UPDATE" }
        return query
    }

    package static func listQuery(_ query: RecordQuery) -> PostgresQuery {
        let sql = RecordSQL(query) { "$\($0)" }
        return Self.query(sql.select(query), sql.binds)
    }

    package static func countQuery(_ query: RecordQuery) -> PostgresQuery {
        let sql = RecordSQL(query) { "$\($0)" }
        return Self.query(sql.count(), sql.binds)
    }

    /// The committed record, if any.
    public func record(kind: String, scope: String, id: String) async throws -> Record? {
        try await fetch(Self.recordQuery(kind: kind, scope: scope, id: id, lock: false)).first.map(Self.decodeRecord)
    }

    /// The committed records matching `query`.
    public func records(_ query: RecordQuery) async throws -> [Record] {
        try await fetch(Self.listQuery(query)).map(Self.decodeRecord)
    }

    /// How many committed records match `query`.
    public func countRecords(_ query: RecordQuery) async throws -> Int {
        try await fetch(Self.countQuery(query)).first?.decode(Int.self) ?? 0
    }

    /// The committed text records holding every term, through the GIN index of their
    /// words (`records_text`); relevance is `ts_rank`.
    public func searchTexts(_ search: TextSearch) async throws -> [Record] {
        guard !search.terms.isEmpty else { return [] }
        let filters = TextSearchSQL(search)
        // The terms are letters and digits only (TextSearch.words), so they need no quoting.
        let terms = search.terms.joined(separator: " & ")
        let sql = "SELECT r.kind, r.scope, r.id, r.sort, r.tag, r.data FROM records r, to_tsquery('simple', ?) AS q "
            + "WHERE r.kind = '\(TextSearch.kind)' AND to_tsvector('simple', r.data) @@ q AND " + filters.condition
            + TextSearchSQL.ordering(search, rank: "ts_rank(to_tsvector('simple', r.data), q) DESC")
        return try await fetch(Self.query(RecordSQL.numbered(sql) { "$\($0)" }, [.text(terms)] + filters.binds)).map(Self.decodeRecord)
    }
}
