import GreenroomStorage
import Logging
import PostgresNIO

extension PostgresStorage {
    /// Runs `body` with an import into this database's tables, all in one transaction: the
    /// tables are locked against every writer (nodes may read meanwhile), refused when any
    /// of them holds a row, and what `body` inserts is committed only when it returns.
    /// The schema must be at its latest version (``migrate()`` first).
    /// - Throws: ``GreenroomServerError/storage(_:)`` when the database holds data already.
    package func importing<T: Sendable>(_ body: (PostgresImport) async throws -> T) async throws -> T {
        try await transaction { connection in
            let tables = StoreTable.all.map(\.name).joined(separator: ", ")
            try await connection.query(PostgresQuery(unsafeSQL: "LOCK TABLE \(tables) IN EXCLUSIVE MODE"), logger: self.logger)
            for table in StoreTable.all {
                let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(table.name))"), logger: self.logger).collect()
                if try rows.first?.decode(Bool.self) == true {
                    throw GreenroomServerError.storage(
                        "the database at \(self.location.host):\(self.location.port)/\(self.location.database ?? "") already holds Greenroom data (its \(table.name) table has rows); copy only into an empty database")
                }
            }
            return try await body(PostgresImport(connection: connection, logger: self.logger))
        }
    }
}

/// Inserts rows of the store's tables (``StoreTable``) on the connection of an import's
/// transaction (``PostgresStorage/importing(_:)``): a page of rows is one statement, its
/// columns sent as arrays and taken apart by `unnest`.
package struct PostgresImport: Sendable {
    let connection: PostgresConnection
    let logger: Logger

    /// Inserts `rows` (values in `table`'s column order) into `table`.
    /// - Throws: when a value does not fit its column's type.
    package func insert(_ rows: [[StoreValue]], into table: StoreTable) async throws {
        guard !rows.isEmpty else { return }
        var bindings = PostgresBindings()
        var arrays: [String] = []
        var names: [String] = []
        var selected: [String] = []
        for (index, column) in table.columns.enumerated() {
            let values = try rows.map { row -> StoreValue in
                guard index < row.count else { throw GreenroomServerError.storage("a row of \(table.name) has \(row.count) values, not \(table.columns.count)") }
                return row[index]
            }
            switch column.type {
            case .text:
                bindings.append(try values.map { try Self.text($0, column, table) })
                arrays.append("$\(bindings.count)::text[]")
            case .integer:
                bindings.append(try values.map { try Self.integer($0, column, table) })
                arrays.append("$\(bindings.count)::bigint[]")
            case .real:
                bindings.append(try values.map { try Self.real($0, column, table) })
                arrays.append("$\(bindings.count)::double precision[]")
            }
            names.append(column.name)
            if column.nullable {
                bindings.append(values.map { $0 == .null })
                arrays.append("$\(bindings.count)::boolean[]")
                names.append("\(column.name)_null")
                selected.append("CASE WHEN u.\(column.name)_null THEN NULL ELSE u.\(column.name) END")
            } else {
                selected.append("u.\(column.name)")
            }
        }
        let sql = """
            INSERT INTO \(table.name) (\(table.columns.map(\.name).joined(separator: ", ")))
            SELECT \(selected.joined(separator: ", ")) FROM unnest(\(arrays.joined(separator: ", "))) AS u(\(names.joined(separator: ", ")))
            """
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// How many rows each table holds, as this transaction sees them.
    package func counts() async throws -> StoreCounts {
        var counts: StoreCounts = [:]
        for table in StoreTable.all {
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table.name)"), logger: logger).collect()
            counts[table.name] = Int(try rows.first?.decode(Int64.self) ?? 0)
        }
        return counts
    }

    private static func text(_ value: StoreValue, _ column: StoreTable.Column, _ table: StoreTable) throws -> String {
        switch value {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        case .null:
            guard column.nullable else { throw missing(column, table) }
            return ""
        }
    }

    private static func integer(_ value: StoreValue, _ column: StoreTable.Column, _ table: StoreTable) throws -> Int64 {
        switch value {
        case .integer(let integer): return integer
        case .real(let real):
            if let integer = Int64(exactly: real) { return integer }
        case .text(let text):
            if let integer = Int64(text) { return integer }
        case .null:
            if column.nullable { return 0 }
        }
        throw GreenroomServerError.storage("\(table.name).\(column.name) holds \(value), not an integer")
    }

    private static func real(_ value: StoreValue, _ column: StoreTable.Column, _ table: StoreTable) throws -> Double {
        switch value {
        case .real(let real): return real
        case .integer(let integer): return Double(integer)
        case .text(let text):
            if let real = Double(text) { return real }
        case .null:
            if column.nullable { return 0 }
        }
        throw GreenroomServerError.storage("\(table.name).\(column.name) holds \(value), not a number")
    }

    private static func missing(_ column: StoreTable.Column, _ table: StoreTable) -> any Error {
        GreenroomServerError.storage("\(table.name).\(column.name) is empty (NULL) in a row, where it may not be")
    }
}
