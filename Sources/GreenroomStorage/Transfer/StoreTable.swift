/// One value of a stored row, as it moves from one backend to another.
package enum StoreValue: Sendable, Hashable {
    case text(String)
    case integer(Int64)
    case real(Double)
    case null
}

/// A table every backend keeps with the same columns, described for copying a store from
/// one backend to another (`greenroom migrate`): its columns, their types, and the key a
/// copy pages through it by.
///
/// The text records (``TextSearch/kind``) are rows of `records` here, as PostgreSQL keeps
/// them; SQLite keeps them in a table of its own and gives and takes them as `records`.
package struct StoreTable: Sendable {
    /// A column's type.
    package enum ColumnType: Sendable {
        case text, integer, real
    }

    /// One column.
    package struct Column: Sendable {
        package var name: String
        package var type: ColumnType
        package var nullable: Bool

        package init(_ name: String, _ type: ColumnType, nullable: Bool = false) {
            self.name = name
            self.type = type
            self.nullable = nullable
        }
    }

    /// The table's name.
    package var name: String
    /// Its columns, in the order a row's values come.
    package var columns: [Column]
    /// The columns of its primary key, which order a copy's pages.
    package var key: [String]

    /// Every table of a store, in an order that copies each before any that refers to it.
    package static let all: [StoreTable] = [users, streams, events, presence, records]

    package static let users = StoreTable(name: "users", columns: [
        Column("id", .text), Column("nickname", .text), Column("nickname_lower", .text),
        Column("profile_url", .text, nullable: true), Column("extra_data", .text),
        Column("created_at", .real), Column("updated_at", .real),
    ], key: ["id"])

    package static let streams = StoreTable(name: "streams", columns: [
        Column("name", .text), Column("epoch", .text), Column("head", .integer), Column("trimmed", .integer),
    ], key: ["name"])

    package static let events = StoreTable(name: "events", columns: [
        Column("stream", .text), Column("seq", .integer), Column("type", .text), Column("data", .text),
        Column("at", .real), Column("idem_key", .text, nullable: true),
        Column("audience", .text, nullable: true), Column("revokes", .text, nullable: true),
    ], key: ["stream", "seq"])

    package static let presence = StoreTable(name: "presence", columns: [
        Column("stream", .text), Column("client_id", .text), Column("user_id", .text), Column("data", .text),
        Column("joined_at", .real), Column("expires_at", .real), Column("node", .text),
    ], key: ["stream", "client_id"])

    package static let records = StoreTable(name: "records", columns: [
        Column("kind", .text), Column("scope", .text), Column("id", .text), Column("sort", .integer),
        Column("tag", .text), Column("data", .text),
    ], key: ["kind", "scope", "id"])
}

/// How many rows each table of a store holds.
package typealias StoreCounts = [String: Int]
