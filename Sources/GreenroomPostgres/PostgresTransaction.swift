import Foundation
import GreenroomProtocol
import GreenroomStorage
import PostgresNIO

/// A write transaction on one pooled PostgreSQL connection; single records it reads are
/// locked (`FOR UPDATE`) until it ends, so concurrent changes on other nodes wait. Record
/// writes, events and notifications are held back and sent together (``DeferredWrites``).
package final class PostgresTransaction: StorageTransaction {
    package let storage: PostgresStorage
    package let connection: PostgresConnection
    package let batch = BatchState()
    package let deferred = DeferredWrites()

    package init(storage: PostgresStorage, connection: PostgresConnection) {
        self.storage = storage
        self.connection = connection
    }

    package func run(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await raceAware { try await self.connection.query(query, logger: self.storage.logger).collect() }
    }

    /// Runs `body`, turning PostgreSQL's deadlock and serialization failures into
    /// ``StorageRaceLost`` so that the batch is retried.
    package func raceAware<T>(_ body: () async throws -> T) async throws -> T {
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

    /// The record: as this transaction read or wrote it, else read and locked.
    package func record(kind: String, scope: String, id: String) async throws -> Record? {
        if let known = deferred.known(RecordKey(kind: kind, scope: scope, id: id)) { return known.record }
        let found = try await run(PostgresStorage.recordQuery(kind: kind, scope: scope, id: id, lock: true)).first.map(PostgresStorage.decodeRecord)
        if let found { deferred.remember(read: found) }
        return found
    }

    package func records(_ query: RecordQuery) async throws -> [Record] {
        try await flush()
        return try await run(PostgresStorage.listQuery(query)).map(PostgresStorage.decodeRecord)
    }

    package func countRecords(_ query: RecordQuery) async throws -> Int {
        try await flush()
        return try await run(PostgresStorage.countQuery(query)).first?.decode(Int.self) ?? 0
    }

    package func put(_ record: Record) async throws {
        deferred.write(record)
    }

    package func insert(_ record: Record) async throws -> Bool {
        if deferred.known(RecordKey(record))?.record != nil { return false }
        let rows = try await change("""
            INSERT INTO records (kind, scope, id, sort, tag, data)
            VALUES (\(record.kind), \(record.scope), \(record.id), \(record.sort), \(record.tag), \(record.data))
            ON CONFLICT DO NOTHING RETURNING id
            """)
        if !rows.isEmpty { deferred.remember(read: record) }
        return !rows.isEmpty
    }

    package func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool {
        let unsent = deferred.forget(RecordKey(kind: kind, scope: scope, id: id))
        let deleted = !(try await change("DELETE FROM records WHERE kind = \(kind) AND scope = \(scope) AND id = \(id) RETURNING id")).isEmpty
        return deleted || unsent
    }

    package func deleteRecords(kind: String, scope: String) async throws -> Int {
        try await flush()
        let count = try await change("DELETE FROM records WHERE kind = \(kind) AND scope = \(scope) RETURNING id").count
        deferred.forgetAll(kind: kind, scope: scope)
        return count
    }

    package func lock(stream: String) async throws {
        try await batch.lock(stream) { name in try await self.lockStream(name) }
    }

    /// Creates the stream's row when new and locks it. No savepoint is needed: a stream's
    /// row, made here with nothing in it, is what reading a new stream makes too.
    private func lockStream(_ name: String) async throws -> StreamInfo {
        for case .stream(_, let info) in try await lockRows([RecordKey](), streams: [name]) { return info }
        throw GreenroomServerError.storage("stream \(name) vanished")
    }

    package func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await run(PostgresStorage.presenceEntryQuery(stream: stream, clientId: clientId)).first.map(PostgresStorage.decodePresence)
    }

    package func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int {
        try await run(PostgresStorage.presenceCountQuery(stream: stream, clientIdPrefix: prefix)).first?.decode(Int.self) ?? 0
    }

    package func presence(stream: String) async throws -> [PresenceEntry] {
        try await run(PostgresStorage.presenceQuery(stream: stream)).map(PostgresStorage.decodePresence)
    }

    package func putPresence(_ entry: PresenceEntry) async throws -> Bool {
        try await change(try PostgresStorage.putPresenceQuery(entry)).first?.decode(Bool.self) ?? false
    }

    package func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? {
        try await change(PostgresStorage.removePresenceQuery(stream: stream, clientId: clientId)).first.map(PostgresStorage.decodePresence)
    }

    package func presence(userId: String) async throws -> [PresenceEntry] {
        try await run(PostgresStorage.presenceQuery(userId: userId)).map(PostgresStorage.decodePresence)
    }

    package func user(id: String) async throws -> User? {
        try await run(PostgresStorage.userQuery(id: id, lock: true)).first.map(PostgresStorage.decodeUser)
    }

    package func insertUser(_ user: User) async throws -> Bool {
        !(try await change(try PostgresStorage.insertUserQuery(user))).isEmpty
    }

    package func saveUser(_ user: User) async throws {
        _ = try await change(try PostgresStorage.saveUserQuery(user))
    }

    package func deleteUser(id: String) async throws -> Bool {
        !(try await change("DELETE FROM users WHERE id = \(id) RETURNING id")).isEmpty
    }

    package func retire(stream: String) async throws {
        try await lock(stream: stream)
        try await flush()   // events this batch appended are removed too
        _ = try await change("DELETE FROM events WHERE stream = \(stream)")
        batch.retire(stream, epoch: RandomHex.string(bytes: 4))
    }

    package func rewriteEvents(stream: String, containing needle: String,
                       _ rewrite: @escaping @Sendable (StreamEvent) throws -> RawJSON?) async throws -> Int {
        try await lock(stream: stream)
        try await flush()
        let epoch = batch.info(stream)?.epoch ?? ""
        let rows = try await run("SELECT seq, type, data, at, audience, revokes FROM events WHERE stream = \(stream) AND strpos(data, \(needle)) > 0")
        var changed = 0
        for row in rows {
            let event = try PostgresStorage.decodeEvent(row, stream: stream, epoch: epoch)
            guard let data = try rewrite(event) else { continue }
            let text = try data.jsonString()
            _ = try await change("UPDATE events SET data = \(text) WHERE stream = \(stream) AND seq = \(Int64(event.offset))")
            changed += 1
        }
        return changed
    }

    package func append(_ appends: [EventAppend]) async throws -> [AppendOutcome] {
        try await batch.append(appends) { name in
            try await self.lockStream(name)
        } findKey: { stream, key, epoch in
            try await self.flush()   // a key appended earlier in the batch is found
            let rows = try await self.run("SELECT seq, type, data, at, audience, revokes FROM events WHERE stream = \(stream) AND idem_key = \(key)")
            return try rows.first.map { try PostgresStorage.decodeEvent($0, stream: stream, epoch: epoch) }
        } insert: { event, key in
            self.deferred.deferEvent(event, key: key)
        }
    }
}
