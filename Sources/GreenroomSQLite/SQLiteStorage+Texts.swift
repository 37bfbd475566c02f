import Foundation
import GreenroomProtocol
import GreenroomStorage

/// The text records (``TextSearch/kind``) on SQLite: not rows of `records` but rows of
/// `text_entries` (scope, id, sort, tag and the words), whose integer row id is their entry
/// in the FTS5 index `texts` (an index of `text_entries.text` without per-row sizes). A
/// message's send writes one row and its index entry, instead of a second record, a row
/// id mapping, the index entry and its size row, which takes back about a quarter of what
/// the index costs `bench store` (BENCHMARKS.md, "the search index's own table").
/// The storage keeps the index in step itself, since an external-content index is not
/// told of its table's changes: a transaction's steps write `text_entries` and queue their
/// index changes (``TextIndexChanges``), which go into `texts` once the steps are done.
extension SQLiteStorage {
    static func isText(_ kind: String) -> Bool { kind == TextSearch.kind }

    /// Writes (or replaces) a text record; `onlyNew` leaves an existing one as it is.
    /// - Returns: whether it was new.
    @discardableResult
    static func putText(_ record: Record, onlyNew: Bool = false, on connection: SQLiteHandle, index: TextIndexChanges) throws -> Bool {
        let inserted = try connection.query(
            "INSERT INTO text_entries (scope, id, sort, tag, text) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, id) DO NOTHING RETURNING n",
            [.text(record.scope), .text(record.id), .integer(Int(record.sort)), .text(record.tag), .text(record.data)])
        if let n = inserted.first?.column("n")?.integer {
            index.add(.insert(n, record.data))
            return true
        }
        guard !onlyNew,
              let row = try connection.query("SELECT n, text FROM text_entries WHERE scope = ? AND id = ?", [.text(record.scope), .text(record.id)]).first,
              let n = row.column("n")?.integer else { return false }
        index.add(.delete(n, row.column("text")?.string ?? ""))
        try connection.query("UPDATE text_entries SET sort = ?, tag = ?, text = ? WHERE n = ?",
                             [.integer(Int(record.sort)), .text(record.tag), .text(record.data), .integer(n)])
        index.add(.insert(n, record.data))
        return false
    }

    /// Removes the text record `id` of `scope`, or every one of `scope` when `id` is `nil`.
    /// - Returns: how many were removed.
    static func deleteTexts(scope: String, id: String?, on connection: SQLiteHandle, index: TextIndexChanges) throws -> Int {
        let rows = try id.map {
            try connection.query("DELETE FROM text_entries WHERE scope = ? AND id = ? RETURNING n, text", [.text(scope), .text($0)])
        } ?? connection.query("DELETE FROM text_entries WHERE scope = ? RETURNING n, text", [.text(scope)])
        for row in rows {
            if let n = row.column("n")?.integer { index.add(.delete(n, row.column("text")?.string ?? "")) }
        }
        return rows.count
    }

    /// The text records of a query, which may name a scope and ids (no other filter).
    static func texts(_ query: RecordQuery, on connection: SQLiteHandle) throws -> [Record] {
        var sql = "SELECT scope, id, sort, tag, text FROM text_entries WHERE scope = ?"
        var binds: [SQLValue] = [.text(query.scope)]
        if let ids = query.ids {
            guard !ids.isEmpty else { return [] }
            sql += " AND id IN (" + ids.map { _ in "?" }.joined(separator: ", ") + ")"
            binds += ids.map(SQLValue.text)
        }
        sql += " ORDER BY id LIMIT ?"
        binds.append(.integer(max(0, query.limit)))
        return try connection.query(sql, binds).map { row in
            Record(kind: TextSearch.kind, scope: try row.string("scope"), id: try row.string("id"),
                   sort: Int64(row.column("sort")?.integer ?? 0), tag: try row.string("tag"), data: try row.string("text"))
        }
    }

    static func countTexts(_ query: RecordQuery, on connection: SQLiteHandle) throws -> Int {
        try connection.query("SELECT count(*) AS n FROM text_entries WHERE scope = ?", [.text(query.scope)]).first?.column("n")?.integer ?? 0
    }
}

/// The changes a write transaction's steps made to the text records, kept in order for the
/// FTS5 index `texts` and applied there once every step has run, outside the steps'
/// savepoints. FTS5 writes the entries it holds in memory out as a new index segment at
/// every savepoint and every release, and a batch runs each step in a savepoint of its
/// own: written inside the steps, every message made a segment of its own, which the
/// index's merges then had to fold together again. Written after them, a batch's messages
/// make one (BENCHMARKS.md, "the search index written once per batch").
package final class TextIndexChanges: Sendable {
    /// One change: an entry's words added, or taken out (FTS5's `delete` command, which
    /// needs the words the entry was indexed with).
    package enum Change: Sendable {
        case insert(Int, String)
        case delete(Int, String)
    }

    private let changes = Locked<[Change]>([])

    /// No changes, for one transaction.
    package init() {}

    /// Queues `change` after those before it.
    package func add(_ change: Change) { changes.withLock { $0.append(change) } }

    /// How many changes are queued: the mark a step's savepoint keeps.
    package var count: Int { changes.withLock(\.count) }

    /// Forgets the changes after the first `count`, those of a step rolled back.
    package func truncate(to count: Int) {
        changes.withLock { $0.removeSubrange(min(count, $0.count)...) }
    }

    /// Writes the queued changes into `texts` in their order and forgets them.
    package func apply(on connection: SQLiteHandle) throws {
        let queued = changes.withLock { queued in
            defer { queued = [] }
            return queued
        }
        for change in queued {
            switch change {
            case .insert(let n, let text):
                try connection.query("INSERT INTO texts (rowid, text) VALUES (?, ?)", [.integer(n), .text(text)])
            case .delete(let n, let text):
                try connection.query("INSERT INTO texts (texts, rowid, text) VALUES ('delete', ?, ?)", [.integer(n), .text(text)])
            }
        }
    }
}
