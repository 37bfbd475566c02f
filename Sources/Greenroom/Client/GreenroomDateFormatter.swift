import Foundation

/// Dates as the chat SDK writes them into extra data: ISO 8601 with milliseconds
/// (`2026-11-22T18:43:01.123Z`), the form the server uses on the wire.
///
/// ```swift
/// "departureDate": .string(GreenroomDateFormatter.dateString(from: departureDate))
/// guard let departureDate = GreenroomDateFormatter.date(from: text) else { return nil }
/// ```
/// `date(from:)` returns `nil` for a string that is not a date, as the vendor's formatter
/// does, so a port whose code assigns its result to a `Date` unwraps it (seed 002's
/// `BookingFlight.init?(extraData:)` returns `nil`, as it does for other missing fields).
public enum GreenroomDateFormatter {
    /// The string for `date`.
    public static func dateString(from date: Date) -> String {
        WireCoding.formatDate(date)
    }

    /// The date a string written by ``dateString(from:)`` (or any ISO 8601 date, with or
    /// without fractional seconds) stands for, or `nil` when the string is not one.
    public static func date(from string: String) -> Date? {
        WireCoding.parseDate(string)
    }
}
