import Foundation

/// Dates as the chat SDK writes them into extra data: ISO 8601 with milliseconds
/// (`2026-11-22T18:43:01.123Z`), the form the server uses on the wire.
///
/// ```swift
/// "departureDate": .string(GreenroomDateFormatter.dateString(from: departureDate))
/// self.departureDate = GreenroomDateFormatter.date(from: text)
/// ```
public enum GreenroomDateFormatter {
    /// The string for `date`.
    public static func dateString(from date: Date) -> String {
        WireCoding.formatDate(date)
    }

    /// The date a string written by ``dateString(from:)`` (or any ISO 8601 date, with or
    /// without fractional seconds) stands for; `Date(timeIntervalSince1970: 0)` when the
    /// string is not a date. Use ``parse(_:)`` to tell.
    public static func date(from string: String) -> Date {
        parse(string) ?? Date(timeIntervalSince1970: 0)
    }

    /// The date a string stands for, or `nil` when it is not an ISO 8601 date.
    public static func parse(_ string: String) -> Date? {
        WireCoding.parseDate(string)
    }
}
