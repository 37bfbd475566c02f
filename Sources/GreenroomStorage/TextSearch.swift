import Foundation
import GreenroomProtocol

/// A full-text search over the records of kind ``kind``, which every backend indexes as
/// they are written, in the same transaction: SQLite with FTS5, PostgreSQL with a GIN index
/// of `to_tsvector('simple', data)`, the in-memory store by scanning. Such a record's
/// `data` is its text as ``words(_:)`` gives it (words of letters and digits, folded to
/// lower case without accents, joined by spaces), its `tag` its author and its `sort` its
/// time in milliseconds; its scope and id name what it indexes (a channel's message).
/// SQLite keeps such records in a table of their own beside its FTS5 index, not among the
/// other records (`SQLiteStorage+Texts`); they are read and written through the same calls.
public struct TextSearch: Sendable, Hashable {
    /// The kind of the records indexed.
    public static let kind = "text"

    /// The order of the results.
    public enum Order: String, Sendable, Hashable {
        /// The latest first (by sort, then id).
        case newest
        /// The best match first (then the latest).
        case relevance
    }

    /// The words every result holds (whole words, as ``words(_:)`` gives them).
    public var terms: [String]
    /// Only this scope.
    public var scope: String?
    /// Only scopes that are ids of records of this kind and scope with one of these tags
    /// (e.g. the channels a user has joined).
    public var viaKind: String?
    /// The scope of ``viaKind``'s records.
    public var viaScope: String = ""
    /// The tags of ``viaKind``'s records, any when `nil`.
    public var viaTags: [String]?
    /// Only this author.
    public var tag: String?
    /// Only sorts at or above this.
    public var sortFrom: Int64?
    /// Only sorts strictly below this.
    public var sortBelow: Int64?
    /// The order.
    public var order: Order = .newest
    /// With ``Order/newest``: only results after this (sort, id).
    public var after: RecordCursor?
    /// With ``Order/relevance``: results to skip.
    public var offset: Int = 0
    /// The most results.
    public var limit: Int = 20

    /// Makes a search for `terms`.
    public init(terms: [String]) {
        self.terms = terms
    }

    /// The words of `text` as the index keeps them and a search names them: runs of
    /// letters and digits, lower case, without accents.
    public static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .split { !($0.isLetter || $0.isNumber) }
            .map(String.init)
    }

    /// Whether `data` (an indexed record's words) holds every term, and how often.
    public func score(_ data: String) -> Int? {
        var counts: [Substring: Int] = [:]
        for word in data.split(separator: " ") { counts[word, default: 0] += 1 }
        var total = 0
        for term in terms {
            guard let count = counts[Substring(term)] else { return nil }
            total += count
        }
        return total
    }
}

/// The SQL of a text search, shared by the backends: the filters on the indexed record
/// (`r`), with `?` placeholders numbered by ``RecordSQL/numbered(_:_:)``.
package struct TextSearchSQL {
    package var clauses: [String] = []
    package var binds: [RecordSQL.Bind] = []

    package init(_ search: TextSearch) {
        if let scope = search.scope { add("r.scope = ?", .text(scope)) }
        if let kind = search.viaKind {
            var inner = "r.scope IN (SELECT v.id FROM records v WHERE v.kind = ? AND v.scope = ?"
            binds.append(.text(kind))
            binds.append(.text(search.viaScope))
            if let tags = search.viaTags {
                inner += tags.isEmpty ? " AND 1 = 0" : " AND v.tag IN (" + tags.map { _ in "?" }.joined(separator: ", ") + ")"
                binds.append(contentsOf: tags.map(RecordSQL.Bind.text))
            }
            clauses.append(inner + ")")
        }
        if let tag = search.tag { add("r.tag = ?", .text(tag)) }
        if let from = search.sortFrom { add("r.sort >= ?", .integer(from)) }
        if let below = search.sortBelow { add("r.sort < ?", .integer(below)) }
        if search.order == .newest, let after = search.after {
            clauses.append("(r.sort < ? OR (r.sort = ? AND r.id < ?))")
            binds.append(contentsOf: [.integer(after.sort), .integer(after.sort), .text(after.id)])
        }
    }

    private mutating func add(_ clause: String, _ bind: RecordSQL.Bind) {
        clauses.append(clause)
        binds.append(bind)
    }

    /// The filters joined with `AND` (a true clause when there are none).
    package var condition: String { clauses.isEmpty ? "1 = 1" : clauses.joined(separator: " AND ") }

    /// `ORDER BY … LIMIT … OFFSET …` for `search`, ranking by `rank` (best first) for
    /// relevance.
    package static func ordering(_ search: TextSearch, rank: String) -> String {
        let order = search.order == .relevance ? "\(rank), r.sort DESC, r.id DESC" : "r.sort DESC, r.id DESC"
        let offset = search.order == .relevance ? " OFFSET \(max(0, search.offset))" : ""
        return " ORDER BY \(order) LIMIT \(max(0, search.limit))" + offset
    }
}
