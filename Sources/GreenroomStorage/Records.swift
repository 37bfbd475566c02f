import Foundation
import GreenroomProtocol

/// One stored record of a capability (a channel, a member, a message, …): its kind, the
/// scope it lives in (a channel's id for its messages; empty for top-level records), its id
/// in that scope, a sort key, a tag to filter on, and its data as JSON.
///
/// Capabilities keep their state in records so that every storage backend implements a
/// few generic operations once, and the rules live in one place above them.
public struct Record: Sendable, Hashable {
    /// What the record is, e.g. `channel`.
    public var kind: String
    /// Where it lives, e.g. a channel's id; empty for top-level records.
    public var scope: String
    /// Its id within the kind and scope.
    public var id: String
    /// The key lists are ordered by (ties broken by id).
    public var sort: Int64
    /// A short label lists can filter on, e.g. a member's role.
    public var tag: String
    /// The record's data, as compact JSON.
    public var data: String

    /// Makes a record.
    public init(kind: String, scope: String = "", id: String, sort: Int64 = 0, tag: String = "", data: String) {
        self.kind = kind
        self.scope = scope
        self.id = id
        self.sort = sort
        self.tag = tag
        self.data = data
    }
}

/// A query over records of one kind and scope, ordered by (sort, id).
public struct RecordQuery: Sendable, Hashable {
    /// The kind to list.
    public var kind: String
    /// The scope to list in.
    public var scope: String
    /// Only records with one of these tags.
    public var tags: [String]?
    /// Only these ids.
    public var ids: [String]?
    /// Only records whose id is the id of a record of this kind and scope (e.g. the
    /// channels a user is a member of: channels whose id has a `membership` record in the
    /// user's scope).
    public var via: (kind: String, scope: String, tags: [String]?)? {
        get { viaKind.map { ($0, viaScope, viaTags) } }
        set {
            viaKind = newValue?.kind
            viaScope = newValue?.scope ?? ""
            viaTags = newValue?.tags
        }
    }
    package var viaKind: String?
    package var viaScope: String = ""
    package var viaTags: [String]?
    /// Newest (highest sort) first when `true`.
    public var descending: Bool = false
    /// Only records after this (sort, id) in the query's order.
    public var after: RecordCursor?
    /// Only records with a sort key strictly below this.
    public var sortBelow: Int64?
    /// Only records with a sort key strictly above this.
    public var sortAbove: Int64?
    /// The most records to return.
    public var limit: Int = 100

    /// Makes a query.
    public init(kind: String, scope: String = "", limit: Int = 100) {
        self.kind = kind
        self.scope = scope
        self.limit = limit
    }
}

/// A position in a record list: the (sort, id) of the last record seen.
public struct RecordCursor: Sendable, Hashable, Codable {
    /// The last record's sort key.
    public var sort: Int64
    /// The last record's id.
    public var id: String

    /// Makes a cursor.
    public init(sort: Int64, id: String) {
        self.sort = sort
        self.id = id
    }

    /// The cursor as an opaque string for clients.
    public var encoded: String { Cursor.encode("\(sort)|\(id)") }

    /// Parses a client's cursor string. - Throws: `invalidParameterValue`.
    public static func decode(_ text: String) throws -> RecordCursor {
        let raw = try Cursor.decode(text)
        guard let bar = raw.firstIndex(of: "|"), let sort = Int64(raw[..<bar]) else {
            throw GreenroomError(.invalidParameterValue, "cursor is not one this server gave")
        }
        return RecordCursor(sort: sort, id: String(raw[raw.index(after: bar)...]))
    }
}

/// Reading records: the storage itself (committed data) and a write transaction (its own
/// view, locking what it reads) both offer it.
public protocol RecordReading: Sendable {
    /// The record with this kind, scope and id, if any. Inside a write transaction the
    /// record stays locked until the transaction ends.
    func record(kind: String, scope: String, id: String) async throws -> Record?
    /// The records matching `query`, in its order.
    func records(_ query: RecordQuery) async throws -> [Record]
    /// How many records match `query` (its order, cursor and limit are ignored).
    func countRecords(_ query: RecordQuery) async throws -> Int
}

/// One write transaction: records, users and presence change and events are appended
/// atomically; nothing is visible to others until the whole batch commits, and a failing
/// step is undone alone. Every change Greenroom stores goes through one, together with the
/// events that announce it.
public protocol StorageTransaction: RecordReading, PresenceReading {
    /// Locks `stream` until the transaction ends (creating it when new): a transaction on
    /// any node that locks or appends to it waits. Take it before a check over what the
    /// stream's roster holds (a participant limit), so the check holds until commit.
    func lock(stream: String) async throws
    /// Stores a presence entry (replacing the client's earlier one); returns whether it is new.
    @discardableResult
    func putPresence(_ entry: PresenceEntry) async throws -> Bool
    /// Removes a client's presence on a stream; returns the removed entry.
    @discardableResult
    func removePresence(stream: String, clientId: String) async throws -> PresenceEntry?
    /// Every presence and roster entry of `userId`, on any stream (a deleted user's).
    func presence(userId: String) async throws -> [PresenceEntry]
    /// The user with `id`, locked until the transaction ends.
    func user(id: String) async throws -> User?
    /// Stores a new user; returns `false` (storing nothing) when the id is taken.
    func insertUser(_ user: User) async throws -> Bool
    /// Replaces a stored user's fields (its id and creation time stay).
    func saveUser(_ user: User) async throws
    /// Deletes a user; returns whether it existed.
    func deleteUser(id: String) async throws -> Bool
    /// Stores a record, replacing the one with the same kind, scope and id.
    func put(_ record: Record) async throws
    /// Stores a record unless one with the same kind, scope and id exists; returns whether
    /// it was stored (creations that must not overwrite, even when two nodes race).
    func insert(_ record: Record) async throws -> Bool
    /// Removes a record; returns whether it existed.
    @discardableResult
    func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool
    /// Removes every record of a kind in a scope; returns how many.
    @discardableResult
    func deleteRecords(kind: String, scope: String) async throws -> Int
    /// Appends events to their streams' logs, assigning offsets in order.
    func append(_ appends: [EventAppend]) async throws -> [AppendOutcome]
    /// Retires `stream`: removes every event of its log (those this transaction appended
    /// too, which are still published) and gives it a new epoch, its offsets going on after
    /// the last one. Nothing written before can be read again, and a client resuming from
    /// an earlier position is told `recovered: false`. A deleted channel's stream is retired.
    func retire(stream: String) async throws
    /// Rewrites the stored data of `stream`'s events whose data contains `needle` (a
    /// prefilter: `rewrite` decides): `rewrite` returns an event's new data, or `nil` to
    /// leave it. Events this transaction appended are included. Returns how many changed.
    @discardableResult
    func rewriteEvents(stream: String, containing needle: String,
                       _ rewrite: @escaping @Sendable (StreamEvent) throws -> RawJSON?) async throws -> Int
}

/// A value kept as a record: it says where it is stored, and travels as JSON.
package protocol StoredRecord: Codable, Sendable {
    /// The records' kind.
    static var recordKind: String { get }
    /// The scope this value is stored in.
    var recordScope: String { get }
    /// Its id in the scope.
    var recordId: String { get }
    /// Its sort key.
    var recordSort: Int64 { get }
    /// Its tag.
    var recordTag: String { get }
}

extension StoredRecord {
    package var recordScope: String { "" }
    package var recordSort: Int64 { 0 }
    package var recordTag: String { "" }

    package func asRecord() throws -> Record {
        let data = String(decoding: try WireCoding.encode(self), as: UTF8.self)
        RecordValueCache.shared.remember(self, text: data)
        return Record(kind: Self.recordKind, scope: recordScope, id: recordId, sort: recordSort, tag: recordTag, data: data)
    }

    package static func from(_ record: Record) throws -> Self {
        if let value = RecordValueCache.shared.value(Self.self, text: record.data) { return value }
        do {
            let value = try WireCoding.decode(Self.self, from: Data(record.data.utf8))
            RecordValueCache.shared.remember(value, text: record.data)
            return value
        } catch {
            throw GreenroomServerError.storage("a \(recordKind) record does not decode: \(error)")
        }
    }
}

extension RecordReading {
    /// The typed record with `id` in `scope`, if any.
    package func load<R: StoredRecord>(_ type: R.Type, scope: String = "", id: String) async throws -> R? {
        try await record(kind: R.recordKind, scope: scope, id: id).map(R.from)
    }

    /// The typed records matching `query` (whose kind is set from the type).
    package func list<R: StoredRecord>(_ type: R.Type, _ query: RecordQuery) async throws -> [R] {
        var query = query
        query.kind = R.recordKind
        return try await records(query).map(R.from)
    }
}

extension RecordReading {
    /// A page of typed records: `query` is read with room for one more than `limit`, which
    /// only tells that more follow. - Returns: the page and the cursor of the next one.
    package func page<R: StoredRecord>(_ type: R.Type, _ query: RecordQuery, limit: Int) async throws -> (items: [R], next: String?) {
        var query = query
        query.limit = limit + 1
        let records = try await list(type, query)
        let items = Array(records.prefix(limit))
        let next = records.count > limit ? items.last.map { RecordCursor(sort: $0.recordSort, id: $0.recordId).encoded } : nil
        return (items, next)
    }
}

extension StorageTransaction {
    /// Stores a typed record.
    package func save(_ value: some StoredRecord) async throws {
        try await put(try value.asRecord())
    }

    /// Removes a typed record.
    @discardableResult
    package func remove<R: StoredRecord>(_ type: R.Type, scope: String = "", id: String) async throws -> Bool {
        try await deleteRecord(kind: R.recordKind, scope: scope, id: id)
    }
}

/// The SQL of a record query, shared by the backends: `placeholder(n)` writes the n-th
/// bind's placeholder (`?` for SQLite, `$n` for PostgreSQL).
package struct RecordSQL {
    package enum Bind: Sendable { case text(String), integer(Int64) }

    package var clauses: [String] = []
    package var binds: [Bind] = []
    package let placeholder: (Int) -> String

    package init(_ query: RecordQuery, placeholder: @escaping (Int) -> String) {
        self.placeholder = placeholder
        add("kind = ?", .text(query.kind))
        add("scope = ?", .text(query.scope))
        if let tags = query.tags { addList("tag", tags) }
        if let ids = query.ids { addList("id", ids) }
        if let kind = query.viaKind {
            var inner = "id IN (SELECT id FROM records WHERE kind = ? AND scope = ?"
            binds.append(.text(kind))
            binds.append(.text(query.viaScope))
            if let tags = query.viaTags {
                inner += tags.isEmpty ? " AND 1 = 0" : " AND tag IN (" + tags.map { _ in "?" }.joined(separator: ", ") + ")"
                binds.append(contentsOf: tags.map(Bind.text))
            }
            clauses.append(inner + ")")
        }
        if let below = query.sortBelow { add("sort < ?", .integer(below)) }
        if let above = query.sortAbove { add("sort > ?", .integer(above)) }
        if let after = query.after {
            let op = query.descending ? "<" : ">"
            clauses.append("(sort \(op) ? OR (sort = ? AND id \(op) ?))")
            binds.append(contentsOf: [.integer(after.sort), .integer(after.sort), .text(after.id)])
        }
    }

    private mutating func add(_ clause: String, _ bind: Bind) {
        clauses.append(clause)
        binds.append(bind)
    }

    private mutating func addList(_ column: String, _ values: [String]) {
        if values.isEmpty {
            clauses.append("1 = 0")
            return
        }
        clauses.append("\(column) IN (" + values.map { _ in "?" }.joined(separator: ", ") + ")")
        binds.append(contentsOf: values.map(Bind.text))
    }

    /// `SELECT …` of the matching records in the query's order, with its limit.
    package func select(_ query: RecordQuery) -> String {
        let direction = query.descending ? "DESC" : "ASC"
        return numbered("SELECT kind, scope, id, sort, tag, data FROM records WHERE " + clauses.joined(separator: " AND ")
            + " ORDER BY sort \(direction), id \(direction) LIMIT \(max(0, query.limit))")
    }

    /// `SELECT COUNT(*)` of the matching records.
    package func count() -> String {
        numbered("SELECT COUNT(*) AS n FROM records WHERE " + clauses.joined(separator: " AND "))
    }

    /// Replaces each `?` with the backend's placeholder.
    private func numbered(_ sql: String) -> String { Self.numbered(sql, placeholder) }

    /// Replaces each `?` of `sql` with the backend's placeholder for its position (the
    /// first is 1).
    package static func numbered(_ sql: String, _ placeholder: (Int) -> String) -> String {
        var result = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                result += placeholder(index)
            } else {
                result.append(character)
            }
        }
        return result
    }
}
