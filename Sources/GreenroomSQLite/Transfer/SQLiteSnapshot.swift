import Foundation
import GreenroomStorage

/// One moment of a SQLite store, read table by table for copying it elsewhere
/// (`greenroom migrate`): a connection of its own holds one read transaction from the first
/// read to ``close()``, so every page comes from the same commit even when a node goes on
/// writing meanwhile (WAL lets it).
package final class SQLiteSnapshot: Sendable {
    private let handle: SQLiteHandle
    private let thread: SQLiteThread

    private init(handle: SQLiteHandle, thread: SQLiteThread) {
        self.handle = handle
        self.thread = thread
    }

    /// Opens the store at `path` and starts its read transaction.
    /// - Throws: when there is no database there, when its schema is not this version's
    ///   (start this version's server on it once to upgrade it), or when a node may still
    ///   hold acknowledged commits only the operating system has (``Durability/process``):
    ///   its clean stop puts them on the disk first.
    package static func open(path: String) async throws -> SQLiteSnapshot {
        guard FileManager.default.fileExists(atPath: path) else {
            throw GreenroomServerError.dataDirectory("no Greenroom database at \(path)")
        }
        guard !FileManager.default.fileExists(atPath: SQLiteStorage.unsyncedMarkerPath(path)) else {
            throw GreenroomServerError.dataDirectory(
                "\(path) is in use by a node running with durability process, or one that did not stop cleanly: stop it (or start and stop it once) first")
        }
        let thread = SQLiteThread(name: "sqlite-snapshot")
        do {
            let handle = try await thread.run {
                let handle = try SQLiteHandle(path: path)
                do {
                    try handle.query("PRAGMA busy_timeout=5000")
                    try handle.query("BEGIN")
                    let version = try Self.schemaVersion(handle)
                    guard version == SQLiteStorage.migrations.count else {
                        throw GreenroomServerError.dataDirectory(version == 0
                            ? "\(path) holds no Greenroom data"
                            : "\(path) is at schema version \(version), this greenroom writes \(SQLiteStorage.migrations.count): start this version's server on it once to upgrade it")
                    }
                    return handle
                } catch {
                    handle.close()
                    throw error
                }
            }
            return SQLiteSnapshot(handle: handle, thread: thread)
        } catch {
            try? await thread.shutdown()
            throw error
        }
    }

    private static func schemaVersion(_ handle: SQLiteHandle) throws -> Int {
        guard try !handle.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").isEmpty else { return 0 }
        return try handle.query("SELECT version FROM schema_version").first?.column("version")?.integer ?? 0
    }

    /// How many rows each table holds (``StoreTable/all``'s names).
    package func counts() async throws -> StoreCounts {
        try await thread.run {
            var counts: StoreCounts = [:]
            for table in StoreTable.all {
                counts[table.name] = try self.handle.query("SELECT count(*) AS n FROM \(table.name)").first?.column("n")?.integer ?? 0
            }
            let texts = try self.handle.query("SELECT count(*) AS n FROM text_entries").first?.column("n")?.integer ?? 0
            counts[StoreTable.records.name, default: 0] += texts
            return counts
        }
    }

    /// The rows of `table` in pages of `size`, in key order.
    package func pages(of table: StoreTable, size: Int) -> Pages {
        Pages(snapshot: self, table: table, size: max(1, size))
    }

    /// Ends the read transaction and closes the connection.
    package func close() async {
        _ = try? await thread.run {
            _ = try? self.handle.query("COMMIT")
            self.handle.close()
        }
        try? await thread.shutdown()
    }

    /// Reads a table page after page. The text records come after the others: SQLite keeps
    /// them in `text_entries`, read here as rows of `records` of kind ``TextSearch/kind``.
    package struct Pages: Sendable {
        fileprivate let snapshot: SQLiteSnapshot
        fileprivate let table: StoreTable
        fileprivate let size: Int
        private var after: [SQLValue]?
        private var readingTexts = false
        private var done = false

        fileprivate init(snapshot: SQLiteSnapshot, table: StoreTable, size: Int) {
            self.snapshot = snapshot
            self.table = table
            self.size = size
        }

        /// The next page, or `nil` when the table has been read.
        package mutating func next() async throws -> [[StoreValue]]? {
            while !done {
                let (source, key, columns) = readingTexts
                    ? ("text_entries", ["scope", "id"], ["'\(TextSearch.kind)' AS kind", "scope", "id", "sort", "tag", "text AS data"])
                    : (table.name, table.key, table.columns.map(\.name))
                var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(source)"
                var binds: [SQLValue] = []
                if let after {
                    sql += " WHERE (\(key.joined(separator: ", "))) > (\(key.map { _ in "?" }.joined(separator: ", ")))"
                    binds = after
                }
                sql += " ORDER BY \(key.joined(separator: ", ")) LIMIT \(size)"
                let handle = snapshot.handle
                let rows = try await snapshot.thread.run { try handle.query(sql, binds) }
                if let last = rows.last {
                    after = key.map { last.column($0) ?? .null }
                }
                if rows.count < size {
                    after = nil
                    if table.name == StoreTable.records.name && !readingTexts { readingTexts = true } else { done = true }
                }
                if !rows.isEmpty { return rows.map { row in row.values.map(Self.storeValue) } }
            }
            return nil
        }

        private static func storeValue(_ value: SQLValue) -> StoreValue {
            switch value {
            case .integer(let integer): .integer(Int64(integer))
            case .float(let double): .real(double)
            case .text(let text): .text(text)
            case .null: .null
            }
        }
    }
}

extension SQLiteSnapshot {
    /// How many records of `kind` the store holds.
    package func count(kind: String) async throws -> Int {
        try await thread.run {
            try self.handle.query("SELECT count(*) AS n FROM records WHERE kind = ?", [.text(kind)]).first?.column("n")?.integer ?? 0
        }
    }
}
