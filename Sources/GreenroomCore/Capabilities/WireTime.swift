import Foundation
import GreenroomProtocol

extension Date {
    /// Now, to the millisecond: the precision dates keep on the wire and in storage, so that
    /// what a call returns equals what is read back later.
    package static var wireNow: Date {
        let now = Date()
        return WireCoding.parseDate(WireCoding.formatDate(now)) ?? now
    }
}
