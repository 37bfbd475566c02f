import Foundation
import GreenroomProtocol

/// Everything an in-memory database holds, as values: a transaction works on a copy and
/// commits by replacing the whole (copy-on-write keeps the copies cheap).
package struct MemoryState: Sendable {
    package struct StoredEvent: Sendable {
        var event: StreamEvent
        var key: String?
    }

    package var version = 0
    package var users: [String: User] = [:]
    package var streams: [String: StreamInfo] = [:]
    /// Each stream's events, by offset.
    package var events: [String: [StoredEvent]] = [:]
    /// Records by kind, scope and id.
    package var records: [String: [String: [String: Record]]] = [:]
    /// Presence entries by stream and client id.
    package var presence: [String: [String: PresenceEntry]] = [:]

    /// Byte order, as SQLite's and PostgreSQL's `COLLATE "C"` compare ids.
    package static func before(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    package mutating func loadOrCreateStream(_ name: String) -> StreamInfo {
        if let info = streams[name] { return info }
        let info = StreamInfo(epoch: RandomHex.string(bytes: 4), head: 0, trimmed: 0)
        streams[name] = info
        return info
    }

    package func listUsers(ids: [String]?, nicknamePrefix: String?, afterId: String?, limit: Int) -> [User] {
        let prefix = nicknamePrefix?.lowercased() ?? ""
        let wanted = ids.map(Set.init)
        return users.values
            .filter { user in
                (afterId.map { Self.before($0, user.id) } ?? true) && (wanted?.contains(user.id) ?? true)
                    && user.nickname.lowercased().hasPrefix(prefix)
            }
            .sorted { Self.before($0.id, $1.id) }
            .prefix(max(limit, 0))
            .map { $0 }
    }

    package func presence(stream: String) -> [PresenceEntry] {
        (presence[stream] ?? [:]).values.sorted {
            $0.joinedAt != $1.joinedAt ? $0.joinedAt < $1.joinedAt : Self.before($0.clientId, $1.clientId)
        }
    }

    package func presenceCount(stream: String, prefix: String) -> Int {
        (presence[stream] ?? [:]).keys.filter { $0.hasPrefix(prefix) }.count
    }

    /// The records `query` matches, unordered and without its limit.
    package func matching(_ query: RecordQuery) -> [Record] {
        let inScope = records[query.kind]?[query.scope].map { Array($0.values) } ?? []
        let tags = query.tags.map(Set.init)
        let ids = query.ids.map(Set.init)
        let via: Set<String>? = query.viaKind.map { kind in
            let linked = records[kind]?[query.viaScope]?.values.filter { record in query.viaTags.map { $0.contains(record.tag) } ?? true }
            return Set((linked ?? []).map(\.id))
        }
        return inScope.filter { record in
            guard tags?.contains(record.tag) ?? true, ids?.contains(record.id) ?? true, via?.contains(record.id) ?? true else { return false }
            if let below = query.sortBelow, record.sort >= below { return false }
            if let above = query.sortAbove, record.sort <= above { return false }
            if let after = query.after {
                let later = query.descending
                    ? record.sort < after.sort || (record.sort == after.sort && Self.before(record.id, after.id))
                    : record.sort > after.sort || (record.sort == after.sort && Self.before(after.id, record.id))
                if !later { return false }
            }
            return true
        }
    }

    /// The records `query` matches, in its order, at most its limit.
    package func records(_ query: RecordQuery) -> [Record] {
        let ascending = matching(query).sorted { $0.sort != $1.sort ? $0.sort < $1.sort : Self.before($0.id, $1.id) }
        return Array((query.descending ? ascending.reversed() : ascending).prefix(max(query.limit, 0)))
    }
}

extension MemoryStorage {
    /// Runs the steps in one transaction on a copy of the database (a savepoint is a copy
    /// too), then trims each touched stream and commits the copy.
    public func write(_ steps: [WriteStep], retentionCount: UInt64) async throws -> [StepOutcome] {
        try await database.writeLock.withLock {
            let transaction = MemoryTransaction(state: self.database.read { $0 })
            let outcomes = try await BatchState.run(
                steps, in: transaction, batch: transaction.batch,
                savepoint: { transaction.savepoint($0) },
                rollback: { transaction.rollback(to: $0) },
                release: { transaction.release($0) })
            transaction.finish(retentionCount: retentionCount)
            let committed = transaction.state
            self.database.update { $0 = committed }
            return outcomes
        }
    }
}

/// A write transaction on a copy of an in-memory database.
package final class MemoryTransaction: StorageTransaction {
    private struct Working {
        var state: MemoryState
        var savepoints: [String: MemoryState] = [:]
    }

    package let batch = BatchState()
    private let working: Locked<Working>

    package init(state: MemoryState) {
        working = Locked(Working(state: state))
    }

    package var state: MemoryState { working.withLock { $0.state } }

    private func read<T>(_ body: (MemoryState) -> T) -> T { working.withLock { body($0.state) } }
    private func change<T>(_ body: (inout MemoryState) -> T) -> T { working.withLock { body(&$0.state) } }

    package func savepoint(_ name: String) { working.withLock { $0.savepoints[name] = $0.state } }
    package func release(_ name: String) { _ = working.withLock { $0.savepoints.removeValue(forKey: name) } }
    package func rollback(to name: String) {
        working.withLock { working in
            if let saved = working.savepoints.removeValue(forKey: name) { working.state = saved }
        }
    }

    /// Writes back the streams the batch advanced, trimming each to `retentionCount` events.
    package func finish(retentionCount: UInt64) {
        let touched = batch.touchedStreams
        change { state in
            for (name, var info) in touched {
                if let mark = EventBatch.trimMark(info, retentionCount: retentionCount) {
                    info.trimmed = mark
                    state.events[name]?.removeAll { $0.event.offset <= mark }
                }
                state.streams[name] = info
            }
        }
    }

    // MARK: Records

    package func record(kind: String, scope: String, id: String) async throws -> Record? { read { $0.records[kind]?[scope]?[id] } }
    package func records(_ query: RecordQuery) async throws -> [Record] { read { $0.records(query) } }
    package func countRecords(_ query: RecordQuery) async throws -> Int { read { $0.matching(query).count } }

    package func put(_ record: Record) async throws {
        change { $0.records[record.kind, default: [:]][record.scope, default: [:]][record.id] = record }
    }

    package func insert(_ record: Record) async throws -> Bool {
        change { state in
            guard state.records[record.kind]?[record.scope]?[record.id] == nil else { return false }
            state.records[record.kind, default: [:]][record.scope, default: [:]][record.id] = record
            return true
        }
    }

    package func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool {
        change { $0.records[kind]?[scope]?.removeValue(forKey: id) != nil }
    }

    package func deleteRecords(kind: String, scope: String) async throws -> Int {
        change { $0.records[kind]?.removeValue(forKey: scope)?.count ?? 0 }
    }

    // MARK: Presence

    package func lock(stream: String) async throws {
        // The write lock serialises every transaction; loading keeps the batch's view of
        // the stream the same as an append would.
        try await batch.lock(stream) { name in self.change { $0.loadOrCreateStream(name) } }
    }

    package func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? { read { $0.presence[stream]?[clientId] } }
    package func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int { read { $0.presenceCount(stream: stream, prefix: prefix) } }
    package func presence(stream: String) async throws -> [PresenceEntry] { read { $0.presence(stream: stream) } }
    package func presence(userId: String) async throws -> [PresenceEntry] {
        read { state in
            state.presence.values.flatMap(\.values).filter { $0.userId == userId }
                .sorted { ($0.stream, $0.clientId) < ($1.stream, $1.clientId) }
        }
    }

    package func putPresence(_ entry: PresenceEntry) async throws -> Bool {
        change { state in
            var entry = entry
            // As the SQL backends' upserts: a replaced entry keeps its user and join time.
            if let existing = state.presence[entry.stream]?[entry.clientId] {
                entry.joinedAt = existing.joinedAt
                entry.userId = existing.userId
            }
            let fresh = state.presence[entry.stream]?[entry.clientId] == nil
            state.presence[entry.stream, default: [:]][entry.clientId] = entry
            return fresh
        }
    }

    package func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? {
        change { state in
            let removed = state.presence[stream]?.removeValue(forKey: clientId)
            if state.presence[stream]?.isEmpty == true { state.presence[stream] = nil }
            return removed
        }
    }

    // MARK: Users

    package func user(id: String) async throws -> User? { read { $0.users[id] } }

    package func insertUser(_ user: User) async throws -> Bool {
        change { state in
            guard state.users[user.id] == nil else { return false }
            state.users[user.id] = user
            return true
        }
    }

    package func saveUser(_ user: User) async throws {
        change { state in
            guard let stored = state.users[user.id] else { return }
            var saved = user
            saved.createdAt = stored.createdAt
            state.users[user.id] = saved
        }
    }

    package func deleteUser(id: String) async throws -> Bool { change { $0.users.removeValue(forKey: id) != nil } }

    // MARK: Events

    package func retire(stream: String) async throws {
        try await lock(stream: stream)
        change { _ = $0.events.removeValue(forKey: stream) }
        batch.retire(stream, epoch: RandomHex.string(bytes: 4))
    }

    package func rewriteEvents(stream: String, containing needle: String,
                       _ rewrite: @escaping @Sendable (StreamEvent) throws -> RawJSON?) async throws -> Int {
        try await lock(stream: stream)
        let stored = read { $0.events[stream] ?? [] }
        var changed: [Int: RawJSON] = [:]
        for (index, item) in stored.enumerated() where (try? item.event.data.jsonString())?.contains(needle) == true {
            if let data = try rewrite(item.event) { changed[index] = data }
        }
        change { state in
            for (index, data) in changed { state.events[stream]?[index].event.data = data }
        }
        return changed.count
    }

    package func append(_ appends: [EventAppend]) async throws -> [AppendOutcome] {
        try await batch.append(appends) { name in
            self.change { $0.loadOrCreateStream(name) }
        } findKey: { stream, key, _ in
            self.read { $0.events[stream]?.first { $0.key == key }?.event }
        } insert: { event, key in
            self.change { $0.events[event.stream, default: []].append(MemoryState.StoredEvent(event: event, key: key)) }
        }
    }
}
