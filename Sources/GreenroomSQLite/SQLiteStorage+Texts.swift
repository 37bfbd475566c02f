import Foundation
import GreenroomStorage

/// The text records (``TextSearch/kind``) on SQLite: not rows of `records` but rows of
/// `text_entries` (scope, id, sort, tag and the words), whose integer row id is their entry
/// in the FTS5 index `texts` (an index of `text_entries.text` without per-row sizes). A
/// message's send writes one row and its index entry, instead of a second record, a row
/// id mapping, the index entry and its size row, which takes back about a quarter of what
/// the index costs `bench store` (BENCHMARKS.md, "the search index's own table").
/// The storage keeps the index in step itself, since an external-content index is not
/// told of its table's changes.
extension SQLiteStorage {
    static func isText(_ kind: String) -> Bool { kind == TextSearch.kind }

    /// Writes (or replaces) a text record; `onlyNew` leaves an existing one as it is.
    /// - Returns: whether it was new.
    @discardableResult
    static func putText(_ record: Record, onlyNew: Bool = false, on connection: SQLiteHandle) throws -> Bool {
        let inserted = try connection.query(
            "INSERT INTO text_entries (scope, id, sort, tag, text) VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, id) DO NOTHING RETURNING n",
            [.text(record.scope), .text(record.id), .integer(Int(record.sort)), .text(record.tag), .text(record.data)])
        if let n = inserted.first?.column("n")?.integer {
            try connection.query("INSERT INTO texts (rowid, text) VALUES (?, ?)", [.integer(n), .text(record.data)])
            return true
        }
        guard !onlyNew,
              let row = try connection.query("SELECT n, text FROM text_entries WHERE scope = ? AND id = ?", [.text(record.scope), .text(record.id)]).first,
              let n = row.column("n")?.integer else { return false }
        try unindex(n, row.column("text")?.string ?? "", on: connection)
        try connection.query("UPDATE text_entries SET sort = ?, tag = ?, text = ? WHERE n = ?",
                             [.integer(Int(record.sort)), .text(record.tag), .text(record.data), .integer(n)])
        try connection.query("INSERT INTO texts (rowid, text) VALUES (?, ?)", [.integer(n), .text(record.data)])
        return false
    }

    /// Takes entry `n`, whose words were `text`, out of the index (FTS5's `delete` command,
    /// which needs the words the entry was indexed with).
    private static func unindex(_ n: Int, _ text: String, on connection: SQLiteHandle) throws {
        try connection.query("INSERT INTO texts (texts, rowid, text) VALUES ('delete', ?, ?)", [.integer(n), .text(text)])
    }

    /// Removes the text record `id` of `scope`, or every one of `scope` when `id` is `nil`.
    /// - Returns: how many were removed.
    static func deleteTexts(scope: String, id: String?, on connection: SQLiteHandle) throws -> Int {
        let rows = try id.map {
            try connection.query("DELETE FROM text_entries WHERE scope = ? AND id = ? RETURNING n, text", [.text(scope), .text($0)])
        } ?? connection.query("DELETE FROM text_entries WHERE scope = ? RETURNING n, text", [.text(scope)])
        for row in rows {
            if let n = row.column("n")?.integer { try unindex(n, row.column("text")?.string ?? "", on: connection) }
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
