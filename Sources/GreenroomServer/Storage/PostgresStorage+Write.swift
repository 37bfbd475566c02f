import Foundation
import GreenroomProtocol
import PostgresNIO

extension PostgresStorage {
    /// How often a batch that lost a deadlock or serialization race to another node is retried.
    static let batchAttempts = 4

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

    private func writeOnce(_ steps: [WriteStep], retentionCount: UInt64) async throws -> [StepOutcome] {
        try await transaction { connection in
            let transaction = PostgresTransaction(storage: self, connection: connection)
            let outcomes = try await BatchState.run(
                steps, in: transaction, batch: transaction.batch,
                savepoint: { try await connection.query(PostgresQuery(unsafeSQL: "SAVEPOINT \($0)"), logger: self.logger) },
                rollback: { try await connection.query(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \($0)"), logger: self.logger) },
                release: { try await connection.query(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \($0)"), logger: self.logger) })
            for (name, var info) in transaction.batch.touchedStreams {
                if let mark = EventBatch.trimMark(info, retentionCount: retentionCount) {
                    info.trimmed = mark
                    try await connection.query("DELETE FROM events WHERE stream = \(name) AND seq <= \(Int64(mark))", logger: self.logger)
                }
                try await connection.query(
                    "UPDATE streams SET head = \(Int64(info.head)), trimmed = \(Int64(info.trimmed)) WHERE name = \(name)",
                    logger: self.logger)
            }
            return outcomes
        }
    }

    // MARK: Records

    static func query(_ sql: String, _ binds: [RecordSQL.Bind]) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            switch bind {
            case .text(let text): bindings.append(text)
            case .integer(let value): bindings.append(value)
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    static func decodeRecord(_ row: PostgresRow) throws -> Record {
        let (kind, scope, id, sort, tag, data) = try row.decode((String, String, String, Int64, String, String).self)
        return Record(kind: kind, scope: scope, id: id, sort: sort, tag: tag, data: data)
    }

    static func recordQuery(kind: String, scope: String, id: String, lock: Bool) -> PostgresQuery {
        var query: PostgresQuery = "SELECT kind, scope, id, sort, tag, data FROM records WHERE kind = \(kind) AND scope = \(scope) AND id = \(id)"
        if lock { query.sql += " FOR UPDATE" }
        return query
    }

    static func listQuery(_ query: RecordQuery) -> PostgresQuery {
        let sql = RecordSQL(query) { "$\($0)" }
        return Self.query(sql.select(query), sql.binds)
    }

    static func countQuery(_ query: RecordQuery) -> PostgresQuery {
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
}

/// A write transaction on one pooled PostgreSQL connection; single records it reads are
/// locked (`FOR UPDATE`) until it ends, so concurrent changes on other nodes wait.
final class PostgresTransaction: StorageTransaction {
    let storage: PostgresStorage
    let connection: PostgresConnection
    let batch = BatchState()

    init(storage: PostgresStorage, connection: PostgresConnection) {
        self.storage = storage
        self.connection = connection
    }

    private func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await raceAware { try await self.connection.query(query, logger: self.storage.logger).collect() }
    }

    /// Runs `body`, turning PostgreSQL's deadlock and serialization failures into
    /// ``StorageRaceLost`` so that the batch is retried.
    private func raceAware<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PSQLError {
            if let state = error.serverInfo?[.sqlState], state == "40P01" || state == "40001" {
                storage.logger.info("a write batch lost a race with another node (\(state)); retrying")
                throw StorageRaceLost()
            }
            throw error
        }
    }

    func record(kind: String, scope: String, id: String) async throws -> Record? {
        try await run(PostgresStorage.recordQuery(kind: kind, scope: scope, id: id, lock: true)).first.map(PostgresStorage.decodeRecord)
    }

    func records(_ query: RecordQuery) async throws -> [Record] {
        try await run(PostgresStorage.listQuery(query)).map(PostgresStorage.decodeRecord)
    }

    func countRecords(_ query: RecordQuery) async throws -> Int {
        try await run(PostgresStorage.countQuery(query)).first?.decode(Int.self) ?? 0
    }

    func put(_ record: Record) async throws {
        _ = try await run("""
            INSERT INTO records (kind, scope, id, sort, tag, data)
            VALUES (\(record.kind), \(record.scope), \(record.id), \(record.sort), \(record.tag), \(record.data))
            ON CONFLICT (kind, scope, id) DO UPDATE SET sort = excluded.sort, tag = excluded.tag, data = excluded.data
            """)
    }

    func insert(_ record: Record) async throws -> Bool {
        let rows = try await run("""
            INSERT INTO records (kind, scope, id, sort, tag, data)
            VALUES (\(record.kind), \(record.scope), \(record.id), \(record.sort), \(record.tag), \(record.data))
            ON CONFLICT DO NOTHING RETURNING id
            """)
        return !rows.isEmpty
    }

    func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool {
        !(try await run("DELETE FROM records WHERE kind = \(kind) AND scope = \(scope) AND id = \(id) RETURNING id")).isEmpty
    }

    func deleteRecords(kind: String, scope: String) async throws -> Int {
        try await run("DELETE FROM records WHERE kind = \(kind) AND scope = \(scope) RETURNING id").count
    }

    func lock(stream: String) async throws {
        try await batch.lock(stream) { name in
            try await self.raceAware { try await self.storage.lockStream(name, on: self.connection) }
        }
    }

    func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await run(PostgresStorage.presenceEntryQuery(stream: stream, clientId: clientId)).first.map(PostgresStorage.decodePresence)
    }

    func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int {
        try await run(PostgresStorage.presenceCountQuery(stream: stream, clientIdPrefix: prefix)).first?.decode(Int.self) ?? 0
    }

    func presence(stream: String) async throws -> [PresenceEntry] {
        try await run(PostgresStorage.presenceQuery(stream: stream)).map(PostgresStorage.decodePresence)
    }

    func putPresence(_ entry: PresenceEntry) async throws -> Bool {
        try await run(try PostgresStorage.putPresenceQuery(entry)).first?.decode(Bool.self) ?? false
    }

    func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await run(PostgresStorage.removePresenceQuery(stream: stream, clientId: clientId)).first.map(PostgresStorage.decodePresence)
    }

    func user(id: String) async throws -> User? {
        try await run(PostgresStorage.userQuery(id: id, lock: true)).first.map(PostgresStorage.decodeUser)
    }

    func insertUser(_ user: User) async throws -> Bool {
        !(try await run(try PostgresStorage.insertUserQuery(user))).isEmpty
    }

    func saveUser(_ user: User) async throws {
        _ = try await run(try PostgresStorage.saveUserQuery(user))
    }

    func deleteUser(id: String) async throws -> Bool {
        !(try await run("DELETE FROM users WHERE id = \(id) RETURNING id")).isEmpty
    }

    func append(_ appends: [EventAppend]) async throws -> [AppendOutcome] {
        try await batch.append(appends) { name in
            try await self.raceAware { try await self.storage.lockStream(name, on: self.connection) }
        } findKey: { stream, key, epoch in
            let rows = try await self.run("SELECT seq, type, data, at, audience, revokes FROM events WHERE stream = \(stream) AND idem_key = \(key)")
            return try rows.first.map { try PostgresStorage.decodeEvent($0, stream: stream, epoch: epoch) }
        } insert: { event, key in
            let data = try event.data.jsonString()
            _ = try await self.run(
                """
                INSERT INTO events (stream, seq, type, data, at, idem_key, audience, revokes)
                VALUES (\(event.stream), \(Int64(event.offset)), \(event.type), \(data), \(event.at.timeIntervalSince1970), \(key),
                        \(event.storedAudience), \(event.storedRevokes))
                """)
            _ = try await self.run("SELECT pg_notify(\(PostgresStorage.notifyChannel), \(PostgresStorage.notifyPayload(event)))")
        }
    }
}
