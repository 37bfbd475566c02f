import Foundation
import GreenroomProtocol
import GreenroomStorage

extension SQLiteStorage {
    /// The writer connection's own thread: the node's writer runs there, so that a batch's
    /// statements, its commit and its events' hand-off are plain calls on one thread.
    public var writeExecutor: (any TaskExecutor)? { writerThread }

    /// Runs the steps in one transaction on the writer connection (steps that ask for it
    /// in savepoints), writes their search index changes, then brings each touched
    /// stream's head and trimmed mark up to date.
    public func write(_ steps: [WriteStep], retentionCount: UInt64) async throws -> [StepOutcome] {
        try await write {
            let transaction = SQLiteTransaction(storage: self)
            let index = transaction.textIndex
            // Savepoints are not nested: one mark is the index changes before the open one.
            var mark = 0
            let outcomes = try await BatchState.run(
                steps, in: transaction, batch: transaction.batch,
                savepoint: { mark = index.count; try self.writer.query("SAVEPOINT \($0)") },
                rollback: {
                    try self.writer.query("ROLLBACK TO \($0)")
                    try self.writer.query("RELEASE \($0)")
                    index.truncate(to: mark)
                },
                release: { try self.writer.query("RELEASE \($0)") })
            try index.apply(on: self.writer)
            for (name, var info) in transaction.batch.touchedStreams {
                if let mark = EventBatch.trimMark(info, retentionCount: retentionCount) {
                    info.trimmed = mark
                    try self.writer.query("DELETE FROM events WHERE stream = ? AND seq <= ?", [.text(name), .offset(mark)])
                }
                try self.writer.query(
                    "UPDATE streams SET epoch = ?, head = ?, trimmed = ? WHERE name = ?",
                    [.text(info.epoch), .offset(info.head), .offset(info.trimmed), .text(name)])
            }
            return outcomes
        }
    }

    // MARK: Records, read on either connection

    package static func decodeRecord(_ row: SQLRow) throws -> Record {
        guard let sort = row.column("sort")?.integer else { throw GreenroomServerError.storage("column sort is missing") }
        return Record(kind: try row.string("kind"), scope: try row.string("scope"), id: try row.string("id"),
                      sort: Int64(sort), tag: try row.string("tag"), data: try row.string("data"))
    }

    package static func binds(_ sql: RecordSQL) -> [SQLValue] { binds(sql.binds) }

    package static func binds(_ binds: [RecordSQL.Bind]) -> [SQLValue] {
        binds.map { bind in
            switch bind {
            case .text(let text): .text(text)
            case .integer(let value): .integer(Int(value))
            }
        }
    }

    package static func record(kind: String, scope: String, id: String, on connection: SQLiteHandle) throws -> Record? {
        if isText(kind) {
            var query = RecordQuery(kind: kind, scope: scope, limit: 1)
            query.ids = [id]
            return try texts(query, on: connection).first
        }
        let rows = try connection.query(
            "SELECT kind, scope, id, sort, tag, data FROM records WHERE kind = ? AND scope = ? AND id = ?",
            [.text(kind), .text(scope), .text(id)])
        return try rows.first.map(decodeRecord)
    }

    package static func records(_ query: RecordQuery, on connection: SQLiteHandle) throws -> [Record] {
        if isText(query.kind) { return try texts(query, on: connection) }
        let sql = RecordSQL(query) { _ in "?" }
        return try connection.query(sql.select(query), binds(sql)).map(decodeRecord)
    }

    package static func countRecords(_ query: RecordQuery, on connection: SQLiteHandle) throws -> Int {
        if isText(query.kind) { return try countTexts(query, on: connection) }
        let sql = RecordSQL(query) { _ in "?" }
        return try connection.query(sql.count(), binds(sql)).first?.column("n")?.integer ?? 0
    }

    /// The committed record, if any.
    public func record(kind: String, scope: String, id: String) async throws -> Record? {
        try await read { try Self.record(kind: kind, scope: scope, id: id, on: $0) }
    }

    /// The committed records matching `query`.
    public func records(_ query: RecordQuery) async throws -> [Record] {
        try await read { try Self.records(query, on: $0) }
    }

    /// How many committed records match `query`.
    public func countRecords(_ query: RecordQuery) async throws -> Int {
        try await read { try Self.countRecords(query, on: $0) }
    }

    /// The committed text records holding every term, through the FTS5 index (`texts`);
    /// relevance is FTS5's BM25 rank.
    public func searchTexts(_ search: TextSearch) async throws -> [Record] {
        guard !search.terms.isEmpty else { return [] }
        let filters = TextSearchSQL(search)
        // Each term quoted: they are letters and digits only (TextSearch.words).
        let match = search.terms.map { "\"\($0)\"" }.joined(separator: " ")
        let sql = "SELECT '\(TextSearch.kind)' AS kind, r.scope, r.id, r.sort, r.tag, r.text AS data FROM texts JOIN text_entries r ON r.n = texts.rowid "
            + "WHERE texts MATCH ? AND " + filters.condition + TextSearchSQL.ordering(search, rank: "texts.rank")
        let binds: [SQLValue] = [.text(match)] + Self.binds(filters.binds)
        return try await read { try $0.query(sql, binds).map(Self.decodeRecord) }
    }
}

/// A write transaction on SQLite's writer connection (the storage's write lock is held
/// for its whole life, so what it reads stays as it read it).
package final class SQLiteTransaction: StorageTransaction {
    package let storage: SQLiteStorage
    package let batch = BatchState()
    /// The search index changes of the text records written so far, for `texts` once the
    /// steps are done.
    package let textIndex = TextIndexChanges()
    private var writer: SQLiteHandle { storage.writer }

    package init(storage: SQLiteStorage) {
        self.storage = storage
    }

    package func record(kind: String, scope: String, id: String) async throws -> Record? {
        try SQLiteStorage.record(kind: kind, scope: scope, id: id, on: writer)
    }

    package func records(_ query: RecordQuery) async throws -> [Record] {
        try SQLiteStorage.records(query, on: writer)
    }

    package func countRecords(_ query: RecordQuery) async throws -> Int {
        try SQLiteStorage.countRecords(query, on: writer)
    }

    package func put(_ record: Record) async throws {
        if SQLiteStorage.isText(record.kind) {
            try SQLiteStorage.putText(record, on: writer, index: textIndex)
            return
        }
        try writer.query(
            """
            INSERT INTO records (kind, scope, id, sort, tag, data) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (kind, scope, id) DO UPDATE SET sort = excluded.sort, tag = excluded.tag, data = excluded.data
            """, [.text(record.kind), .text(record.scope), .text(record.id), .integer(Int(record.sort)), .text(record.tag), .text(record.data)])
    }

    package func insert(_ record: Record) async throws -> Bool {
        if SQLiteStorage.isText(record.kind) { return try SQLiteStorage.putText(record, onlyNew: true, on: writer, index: textIndex) }
        let rows = try writer.query(
            "INSERT INTO records (kind, scope, id, sort, tag, data) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id",
            [.text(record.kind), .text(record.scope), .text(record.id), .integer(Int(record.sort)), .text(record.tag), .text(record.data)])
        return !rows.isEmpty
    }

    package func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool {
        if SQLiteStorage.isText(kind) { return try SQLiteStorage.deleteTexts(scope: scope, id: id, on: writer, index: textIndex) > 0 }
        let rows = try writer.query(
            "DELETE FROM records WHERE kind = ? AND scope = ? AND id = ? RETURNING id", [.text(kind), .text(scope), .text(id)])
        return !rows.isEmpty
    }

    package func deleteRecords(kind: String, scope: String) async throws -> Int {
        if SQLiteStorage.isText(kind) { return try SQLiteStorage.deleteTexts(scope: scope, id: nil, on: writer, index: textIndex) }
        let rows = try writer.query("DELETE FROM records WHERE kind = ? AND scope = ? RETURNING id", [.text(kind), .text(scope)])
        return rows.count
    }

    package func lock(stream: String) async throws {
        // The writer's lock already serialises every write transaction; loading the stream
        // keeps what the transaction knows of it the same as an append would.
        try await batch.lock(stream) { try self.storage.loadOrCreateStream($0, on: self.writer) }
    }

    package func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? {
        try SQLiteStorage.presenceEntry(stream: stream, clientId: clientId, on: writer)
    }

    package func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int {
        try SQLiteStorage.presenceCount(stream: stream, clientIdPrefix: prefix, on: writer)
    }

    package func presence(stream: String) async throws -> [PresenceEntry] {
        try SQLiteStorage.presence(stream: stream, on: writer)
    }

    package func putPresence(_ entry: PresenceEntry) async throws -> Bool {
        try SQLiteStorage.putPresence(entry, on: writer)
    }

    package func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? {
        try SQLiteStorage.removePresence(stream: stream, clientId: clientId, on: writer)
    }

    package func presence(userId: String) async throws -> [PresenceEntry] {
        try SQLiteStorage.presence(userId: userId, on: writer)
    }

    package func user(id: String) async throws -> User? { try SQLiteStorage.user(id: id, on: writer) }
    package func insertUser(_ user: User) async throws -> Bool { try SQLiteStorage.insertUser(user, on: writer) }
    package func saveUser(_ user: User) async throws { try SQLiteStorage.saveUser(user, on: writer) }
    package func deleteUser(id: String) async throws -> Bool { try SQLiteStorage.deleteUser(id: id, on: writer) }

    package func retire(stream: String) async throws {
        try await lock(stream: stream)
        try writer.query("DELETE FROM events WHERE stream = ?", [.text(stream)])
        batch.retire(stream, epoch: SQLiteStorage.newEpoch())
    }

    package func rewriteEvents(stream: String, containing needle: String,
                       _ rewrite: @escaping @Sendable (StreamEvent) throws -> RawJSON?) async throws -> Int {
        try await lock(stream: stream)
        let epoch = batch.info(stream)?.epoch ?? ""
        let rows = try writer.query(
            "SELECT \(SQLiteStorage.eventColumns) FROM events WHERE stream = ? AND instr(data, ?) > 0", [.text(stream), .text(needle)])
        var changed = 0
        for row in rows {
            let event = try SQLiteStorage.decodeEvent(row, stream: stream, epoch: epoch)
            guard let data = try rewrite(event) else { continue }
            try writer.query("UPDATE events SET data = ? WHERE stream = ? AND seq = ?",
                             [.text(try data.jsonString()), .text(stream), .offset(event.offset)])
            changed += 1
        }
        return changed
    }

    package func append(_ appends: [EventAppend]) async throws -> [AppendOutcome] {
        try await batch.append(appends) { name in
            try self.storage.loadOrCreateStream(name, on: self.writer)
        } findKey: { stream, key, epoch in
            let rows = try self.writer.query(
                "SELECT \(SQLiteStorage.eventColumns) FROM events WHERE stream = ? AND idem_key = ?", [.text(stream), .text(key)])
            return try rows.first.map { try SQLiteStorage.decodeEvent($0, stream: stream, epoch: epoch) }
        } insert: { event, key in
            try self.writer.query(
                "INSERT INTO events (stream, seq, type, data, at, idem_key, audience, revokes) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [.text(event.stream), .offset(event.offset), .text(event.type), .text(try event.data.jsonString()),
                 .date(event.at), .text(key), .text(event.storedAudience), .text(event.storedRevokes)])
        }
    }
}
