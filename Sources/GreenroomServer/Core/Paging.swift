import Foundation
import GreenroomProtocol

/// What every capability's paged lists share: the page size a request may ask for, the
/// milliseconds records sort by, and opaque cursors.
enum Paging {
    /// The page size asked for, or the default; refused outside 1...``Limits/maxPageSize``.
    static func limit(_ limit: Int?) throws -> Int {
        let limit = limit ?? Limits.defaultPageSize
        guard (1...Limits.maxPageSize).contains(limit) else {
            throw GreenroomError(.invalidParameterValue, "limit must be between 1 and \(Limits.maxPageSize)")
        }
        return limit
    }

    /// `date` in whole milliseconds since 1970, the sort key of records listed by time.
    static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}

/// Opaque list cursors: the last id of a page, base64url-encoded.
enum Cursor {
    /// The cursor of the page after the one ending at `id`.
    static func encode(_ id: String) -> String { Base64URL.encode(Data(id.utf8)) }

    /// The id a cursor names; `invalidParameterValue` for a cursor this server did not give.
    static func decode(_ cursor: String) throws -> String {
        guard let data = Base64URL.decode(cursor), let id = String(data: data, encoding: .utf8), !id.isEmpty else {
            throw GreenroomError(.invalidParameterValue, "cursor is not one this server gave")
        }
        return id
    }
}
