import Foundation
import GreenroomProtocol

/// Storage in memory: everything the other backends keep, gone when the process ends.
///
/// It passes the same conformance suite as SQLite and PostgreSQL, so that the rules of a
/// capability can be tested in a unit test without a server or a database file, and an
/// app can embed a throw-away server. Several ``MemoryStorage`` values on one
/// ``MemoryDatabase`` behave as nodes sharing a database: write transactions are
/// serialised, each sees its own changes, and commits are atomic.
public final class MemoryStorage: GreenroomStorage {
    /// The database this storage reads and writes.
    public let database: MemoryDatabase

    /// Opens a storage on `database` (a new, empty one by default).
    public init(database: MemoryDatabase = MemoryDatabase()) {
        self.database = database
    }

    /// The embedded schema's version numbers, so that migrating behaves alike; there is no
    /// schema to change. The conformance tests check that the two agree.
    public static let schemaVersions = 9

    /// The latest version, ``schemaVersions``.
    public var latestSchemaVersion: Int { Self.schemaVersions }

    /// Records the version (there is nothing to create).
    public func migrate(upTo version: Int) async throws {
        guard (1...latestSchemaVersion).contains(version) else {
            throw GreenroomServerError.storage("no schema version \(version); the latest is \(latestSchemaVersion)")
        }
        database.update { $0.version = max($0.version, version) }
    }

    /// The version last migrated to (0 when new).
    public func schemaVersion() async throws -> Int { database.read(\.version) }

    /// Nothing to close: the database lives as long as a storage refers to it.
    public func close() async throws {}

    // MARK: Users

    /// The user with `id`, if any.
    public func user(id: String) async throws -> User? { database.read { $0.users[id] } }

    /// Users ordered by id after `afterId`, matching the filters.
    public func listUsers(ids: [String]?, nicknamePrefix: String?, afterId: String?, limit: Int) async throws -> [User] {
        database.read { $0.listUsers(ids: ids, nicknamePrefix: nicknamePrefix, afterId: afterId, limit: limit) }
    }

    // MARK: Events

    /// The state of a stream's log, creating the stream when it is new.
    public func streamInfo(_ stream: String) async throws -> StreamInfo {
        if let info = database.read({ $0.streams[stream] }) { return info }
        return try await database.writing { state in state.loadOrCreateStream(stream) }
    }

    /// Events after `offset`, oldest first.
    public func readEvents(stream: String, after offset: UInt64, limit: Int) async throws -> [StreamEvent] {
        database.read { state in
            Array((state.events[stream] ?? []).lazy.filter { $0.event.offset > offset }.prefix(max(limit, 0)).map(\.event))
        }
    }

    /// Removes the events written before `date` from every stream.
    public func trimEvents(before date: Date) async throws -> Int {
        try await database.writing { state in
            var removed = 0
            for (stream, events) in state.events {
                let old = events.filter { $0.event.at < date }
                guard let last = old.map(\.event.offset).max() else { continue }
                state.events[stream] = events.filter { $0.event.offset > last }
                if var info = state.streams[stream] {
                    info.trimmed = max(info.trimmed, last)
                    state.streams[stream] = info
                }
                removed += old.count
            }
            return removed
        }
    }

    // MARK: Presence

    /// One client's presence on a stream.
    public func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? {
        database.read { $0.presence[stream]?[clientId] }
    }

    /// How many entries of a stream have a client id starting with `prefix`.
    public func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int {
        database.read { $0.presenceCount(stream: stream, prefix: prefix) }
    }

    /// Everyone present on a stream, by join time.
    public func presence(stream: String) async throws -> [PresenceEntry] {
        database.read { $0.presence(stream: stream) }
    }

    /// A page of a stream's entries by join time, then client id.
    public func presence(stream: String, after: PresencePosition?, limit: Int) async throws -> [PresenceEntry] {
        database.read { state in
            let all = state.presence(stream: stream)
            let start = after.map { after in
                all.firstIndex { $0.joinedAt > after.joinedAt || ($0.joinedAt == after.joinedAt && MemoryState.before(after.clientId, $0.clientId)) } ?? all.count
            } ?? 0
            return Array(all[start...].prefix(max(limit, 0)))
        }
    }

    /// Extends every entry of `node`.
    public func renewPresence(node: String, until: Date) async throws {
        try await database.writing { state in
            for (stream, entries) in state.presence {
                for (client, entry) in entries where entry.node == node { state.presence[stream]?[client]?.expiresAt = until }
            }
        }
    }

    /// The expired entries, soonest expired first.
    public func expiredPresence(before date: Date) async throws -> [PresenceEntry] {
        database.read { state in
            state.presence.values.flatMap(\.values).filter { $0.expiresAt < date }.sorted { $0.expiresAt < $1.expiresAt }
        }
    }

    // MARK: Records

    /// The committed record, if any.
    public func record(kind: String, scope: String, id: String) async throws -> Record? {
        database.read { $0.records[kind]?[scope]?[id] }
    }

    /// The committed records matching `query`.
    public func records(_ query: RecordQuery) async throws -> [Record] {
        database.read { $0.records(query) }
    }

    /// How many committed records match `query`.
    public func countRecords(_ query: RecordQuery) async throws -> Int {
        database.read { $0.matching(query).count }
    }
}

/// The data of one in-memory database, shared by the ``MemoryStorage`` values opened on it.
public final class MemoryDatabase: Sendable {
    private let state = Locked(MemoryState())
    /// Held by a write transaction from its first statement to its commit.
    package let writeLock = AsyncLock()

    /// Makes an empty database.
    public init() {}

    package func read<T>(_ body: (MemoryState) -> T) -> T { state.withLock { body($0) } }
    package func update(_ body: (inout MemoryState) -> Void) { state.withLock { body(&$0) } }

    /// Runs `body` on a copy of the committed state under the write lock and commits the
    /// copy when `body` returns (nothing when it throws).
    package func writing<T: Sendable>(_ body: @escaping @Sendable (inout MemoryState) throws -> T) async throws -> T {
        try await writeLock.withLock {
            var working = self.read { $0 }
            let result = try body(&working)
            self.update { $0 = working }
            return result
        }
    }
}

extension MemoryStorage {
    /// The committed text records holding every term, by scanning them.
    public func searchTexts(_ search: TextSearch) async throws -> [Record] {
        database.read { state in
            let scopes = state.records[TextSearch.kind] ?? [:]
            let via: Set<String>? = search.viaKind.map { kind in
                let linked = state.records[kind]?[search.viaScope]?.values.filter { search.viaTags?.contains($0.tag) ?? true }
                return Set((linked ?? []).map(\.id))
            }
            var found: [(record: Record, score: Int)] = []
            for (scope, records) in scopes {
                if let only = search.scope, only != scope { continue }
                if let via, !via.contains(scope) { continue }
                for record in records.values {
                    if let tag = search.tag, record.tag != tag { continue }
                    if let from = search.sortFrom, record.sort < from { continue }
                    if let below = search.sortBelow, record.sort >= below { continue }
                    if search.order == .newest, let after = search.after,
                       !(record.sort < after.sort || (record.sort == after.sort && MemoryState.before(record.id, after.id))) { continue }
                    if let score = search.score(record.data) { found.append((record, score)) }
                }
            }
            let latestFirst: ((record: Record, score: Int), (record: Record, score: Int)) -> Bool = { a, b in
                a.record.sort != b.record.sort ? a.record.sort > b.record.sort : MemoryState.before(b.record.id, a.record.id)
            }
            guard search.order == .relevance else { return found.sorted(by: latestFirst).prefix(max(0, search.limit)).map(\.record) }
            let ranked = found.sorted { $0.score != $1.score ? $0.score > $1.score : latestFirst($0, $1) }
            return ranked.dropFirst(max(0, search.offset)).prefix(max(0, search.limit)).map(\.record)
        }
    }
}
