import Foundation
import GreenroomProtocol

/// What every capability's paged lists share: the page size a request may ask for, the
/// milliseconds records sort by, and opaque cursors.
package enum Paging {
    /// The page size asked for, or the default; refused outside 1...``Limits/maxPageSize``.
    package static func limit(_ limit: Int?) throws -> Int {
        let limit = limit ?? Limits.defaultPageSize
        guard (1...Limits.maxPageSize).contains(limit) else {
            throw GreenroomError(.invalidParameterValue, "limit must be between 1 and \(Limits.maxPageSize)")
        }
        return limit
    }

    /// `date` in whole milliseconds since 1970, the sort key of records listed by time.
    package static func millis(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
