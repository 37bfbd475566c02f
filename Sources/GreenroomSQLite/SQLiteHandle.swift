import Foundation
import GreenroomProtocol
import GreenroomStorage
// The SQLite library sqlite-nio builds and uses (its C target, which its SQLiteNIO module
// imports publicly): one SQLite library in the process, so every connection to a file
// shares the same POSIX locks. Its functions carry sqlite-nio's `sqlite_nio_` prefix.
import VaporCSQLite

/// A value bound to, or read from, a SQL statement.
package enum SQLValue: Sendable, Hashable {
    case integer(Int)
    case float(Double)
    case text(String)
    case null

    package static func text(_ value: String?) -> SQLValue { value.map { .text($0) } ?? .null }
    package static func date(_ value: Date) -> SQLValue { .float(value.timeIntervalSince1970) }
    /// An offset as SQLite's signed integer; offsets past `Int64.max` (which no event has)
    /// become `Int64.max`, so that "after it" matches nothing instead of trapping.
    package static func offset(_ value: UInt64) -> SQLValue { .integer(Int(clamping: value)) }

    /// The value as text (numbers written out), `nil` for NULL.
    package var string: String? {
        switch self {
        case .text(let text): text
        case .integer(let value): String(value)
        case .float(let value): String(value)
        case .null: nil
        }
    }

    /// The value as an integer, `nil` for NULL or text that is not one.
    package var integer: Int? {
        switch self {
        case .integer(let value): value
        case .float(let value): Int(exactly: value)
        case .text(let text): Int(text)
        case .null: nil
        }
    }

    /// The value as a floating-point number, `nil` for NULL or text that is not one.
    package var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .float(let value): value
        case .text(let text): Double(text)
        case .null: nil
        }
    }

    package var isNull: Bool { self == .null }
}

/// One result row: its values by column name.
package struct SQLRow: Sendable {
    package let names: [String]
    package let values: [SQLValue]

    package func column(_ name: String) -> SQLValue? {
        names.firstIndex(of: name).map { values[$0] }
    }
}

/// A SQLite error, with the library's (extended) result code and message.
package struct SQLiteFailure: Error, CustomStringConvertible {
    package let code: Int32
    package let message: String

    package var description: String { "SQLite error \(code): \(message)" }
}

/// One SQLite connection used synchronously, with its prepared statements kept for reuse.
///
/// Each call holds the handle's lock, so a call is safe from any thread; for speed each
/// handle is used from one ``SQLiteThread`` (the writer's also under the storage's write
/// lock, which keeps a transaction's statements to one caller).
package final class SQLiteHandle: Sendable {
    // Safe: the connection and its statements are only used under the handle's lock, and
    // the connection is opened in SQLite's serialized (FULLMUTEX) mode besides.
    private struct State: @unchecked Sendable {
        var db: OpaquePointer?
        var statements: [String: OpaquePointer] = [:]
    }

    private let state: Locked<State>
    /// Statements kept at most; queries built with a variable number of parameters make new
    /// texts, so the cache is emptied when it grows past this.
    private static let statementLimit = 256

    /// SQLite's own initialization, once and before any connection opens: it is made to be
    /// called first, and two first opens at once race on its flags (harmlessly, SQLite says,
    /// but ThreadSanitizer reports it).
    private static let initialized: Int32 = sqlite_nio_sqlite3_initialize()

    /// Opens (creating if needed) the database file at `path`.
    package init(path: String) throws {
        guard Self.initialized == SQLITE_OK else {
            throw SQLiteFailure(code: Self.initialized, message: "SQLite could not initialize")
        }
        let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_EXRESCODE
        var handle: OpaquePointer?
        let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.flatMap { sqlite_nio_sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "cannot open"
            sqlite_nio_sqlite3_close_v2(handle)
            throw SQLiteFailure(code: status, message: "\(message) (\(path))")
        }
        state = Locked(State(db: handle))
    }

    deinit { close() }

    /// Finalizes the kept statements and closes the connection; later calls fail.
    package func close() {
        state.withLock { state in
            for statement in state.statements.values { sqlite_nio_sqlite3_finalize(statement) }
            state.statements.removeAll()
            if let db = state.db { sqlite_nio_sqlite3_close_v2(db) }
            state.db = nil
        }
    }

    /// Runs one statement with `binds` for its `?` parameters and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ binds: [SQLValue] = []) throws -> [SQLRow] {
        try state.withLock { state in try Self.query(sql, binds, in: &state) }
    }

    /// Copies this connection's whole database into `destination`'s with SQLite's online
    /// backup API, in one step: one read transaction on this side, so the copy is the
    /// database at one commit while other connections go on writing (WAL lets them).
    /// - Returns: the pages copied.
    package func copy(into destination: SQLiteHandle) throws -> Int {
        try state.withLock { source in
            try destination.state.withLock { target in
                guard let from = source.db, let to = target.db else {
                    throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed")
                }
                guard let backup = sqlite_nio_sqlite3_backup_init(to, "main", from, "main") else {
                    throw Self.failure(sqlite_nio_sqlite3_errcode(to), to)
                }
                var status = SQLITE_OK
                // A lock another connection holds a moment (a checkpoint, a recovery) is waited
                // out, a few seconds at most.
                for _ in 0..<500 {
                    status = sqlite_nio_sqlite3_backup_step(backup, -1)
                    let primary = status & 0xff
                    guard primary == SQLITE_BUSY || primary == SQLITE_LOCKED else { break }
                    sqlite_nio_sqlite3_sleep(10)
                }
                let pages = Int(sqlite_nio_sqlite3_backup_pagecount(backup))
                let finished = sqlite_nio_sqlite3_backup_finish(backup)
                guard status == SQLITE_DONE else { throw SQLiteFailure(code: status, message: "the backup stopped: " + String(cString: sqlite_nio_sqlite3_errstr(status))) }
                try Self.check(finished, to)
                return pages
            }
        }
    }

    private static func query(_ sql: String, _ binds: [SQLValue], in state: inout State) throws -> [SQLRow] {
        guard let db = state.db else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }
        let statement = try prepared(sql, db: db, in: &state)
        defer {
            sqlite_nio_sqlite3_reset(statement)
            sqlite_nio_sqlite3_clear_bindings(statement)
        }
        for (index, value) in binds.enumerated() {
            try check(bind(value, at: Int32(index + 1), to: statement), db)
        }
        var rows: [SQLRow] = []
        var names: [String]?
        while true {
            let status = sqlite_nio_sqlite3_step(statement)
            if status == SQLITE_DONE { return rows }
            guard status == SQLITE_ROW else { throw failure(status, db) }
            let count = sqlite_nio_sqlite3_column_count(statement)
            let rowNames = names ?? (0..<count).map { String(cString: sqlite_nio_sqlite3_column_name(statement, $0)) }
            names = rowNames
            rows.append(SQLRow(names: rowNames, values: (0..<count).map { column($0, of: statement) }))
        }
    }

    private static func prepared(_ sql: String, db: OpaquePointer, in state: inout State) throws -> OpaquePointer {
        if let statement = state.statements[sql] { return statement }
        if state.statements.count >= statementLimit {
            for statement in state.statements.values { sqlite_nio_sqlite3_finalize(statement) }
            state.statements.removeAll()
        }
        var statement: OpaquePointer?
        try check(sqlite_nio_sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil), db)
        guard let statement else { throw SQLiteFailure(code: SQLITE_MISUSE, message: "no statement in: \(sql)") }
        state.statements[sql] = statement
        return statement
    }

    private static func bind(_ value: SQLValue, at index: Int32, to statement: OpaquePointer) -> Int32 {
        switch value {
        case .integer(let integer): sqlite_nio_sqlite3_bind_int64(statement, index, Int64(integer))
        case .float(let double): sqlite_nio_sqlite3_bind_double(statement, index, double)
        case .null: sqlite_nio_sqlite3_bind_null(statement, index)
        case .text(let text):
            sqlite_nio_sqlite3_bind_text64(statement, index, text, UInt64(text.utf8.count), transient, UInt8(SQLITE_UTF8))
        }
    }

    private static func column(_ index: Int32, of statement: OpaquePointer) -> SQLValue {
        switch sqlite_nio_sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: return .integer(Int(sqlite_nio_sqlite3_column_int64(statement, index)))
        case SQLITE_FLOAT: return .float(sqlite_nio_sqlite3_column_double(statement, index))
        case SQLITE_NULL: return .null
        default:
            // Text (and blobs, which this schema does not store), read as UTF-8.
            guard let bytes = sqlite_nio_sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite_nio_sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
        }
    }

    private static func check(_ status: Int32, _ db: OpaquePointer) throws {
        guard status == SQLITE_OK else { throw failure(status, db) }
    }

    private static func failure(_ status: Int32, _ db: OpaquePointer) -> SQLiteFailure {
        SQLiteFailure(code: status, message: sqlite_nio_sqlite3_errmsg(db).map { String(cString: $0) } ?? "unknown error")
    }

    /// SQLite copies a value bound with this destructor before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
