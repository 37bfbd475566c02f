import Foundation

/// The JSON encoder and decoder every Greenroom frame uses: dates as ISO 8601 with
/// milliseconds, keys sorted for stable output.
public enum WireCoding {
    /// An encoder for wire frames (compact, sorted keys, ISO 8601 dates with milliseconds).
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        return encoder
    }

    /// A decoder for wire frames (ISO 8601 dates, with or without fractional seconds).
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected an ISO 8601 date, got \(text)")
            }
            return date
        }
        return decoder
    }

    /// Formats a date as ISO 8601 in UTC with milliseconds, e.g. `2026-11-22T14:13:19.123Z`.
    ///
    /// The date is rounded to the nearest millisecond, so that formatting what
    /// ``parseDate(_:)`` read gives back the same text.
    public static func formatDate(_ date: Date) -> String {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (millis / 1000).rounded(.down)
        let fraction = Int(millis - seconds * 1000)
        let whole = Date(timeIntervalSince1970: seconds).formatted(Date.ISO8601FormatStyle())
        let digits = String(fraction + 1000).dropFirst()
        return whole.hasSuffix("Z") ? "\(whole.dropLast()).\(digits)Z" : "\(whole).\(digits)"
    }

    /// Parses an ISO 8601 date with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }
}
