import Foundation

/// The JSON encoder and decoder every Greenroom frame uses: dates as ISO 8601 with
/// milliseconds, keys sorted for stable output.
public enum WireCoding {
    /// Encodes a value as a wire frame: the text ``encoder`` writes, made by
    /// `WireEncoder`, which writes it without Foundation's detours.
    public static func encode(_ value: some Encodable) throws -> Data {
        Data(try WireEncoder.encode(value))
    }

    /// Decodes a value from a wire frame: what ``decoder`` reads, read by RawJSON's parser
    /// and `WireDecoder`; what those do not read exactly as ``decoder`` does (and every
    /// failure) is read again by ``decoder``, so the result or the error is its own. One
    /// exception: a number JSON allows that Foundation's parser refuses (`0e1`) is read.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decode(type, fromBytes: data)
    }

    /// Decodes a value from a wire frame's UTF-8 bytes, as ``decode(_:from:)`` does.
    public static func decode<T: Decodable>(_ type: T.Type, fromBytes bytes: some Collection<UInt8>) throws -> T {
        if let value = try? RawJSON.parse(bytes, refusingDuplicateKeys: true), let decoded = try? WireDecoder.decode(T.self, from: value) {
            return decoded
        }
        return try sharedDecoder.decode(type, from: bytes as? Data ?? Data(bytes))
    }

    /// Decodes a value from parsed JSON, as ``decode(_:from:)`` decodes its text.
    static func decode<T: Decodable>(_ type: T.Type, from value: RawJSON) throws -> T {
        if let decoded = try? WireDecoder.decode(T.self, from: value) { return decoded }
        return try sharedDecoder.decode(type, from: try value.jsonData())
    }

    // Never changed after it is made, so sharing it is safe; a caller that wants to
    // change settings takes its own copy from `decoder`.
    private static let sharedDecoder = decoder

    /// A new encoder for wire frames (compact, sorted keys, ISO 8601 dates with milliseconds).
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(formatDate(date))
        }
        return encoder
    }

    /// A new decoder for wire frames (ISO 8601 dates, with or without fractional seconds).
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
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, dayMillis) = millis.quotientAndRemainder(dividingBy: 86_400_000)
        let (dayNumber, millisOfDay) = dayMillis < 0 ? (days - 1, dayMillis + 86_400_000) : (days, dayMillis)
        let (year, month, day) = civil(fromDays: dayNumber)
        guard (0...9999).contains(year) else {
            // Outside four-digit years, leave the calendar arithmetic to Foundation.
            let whole = Date(timeIntervalSince1970: Double(millis - millisOfDay % 1000) / 1000).formatted(Date.ISO8601FormatStyle())
            return "\(whole.dropLast()).\(String(millisOfDay % 1000 + 1000).dropFirst())Z"
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(year, 4); bytes.append(UInt8(ascii: "-")); digits(month, 2); bytes.append(UInt8(ascii: "-")); digits(day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(millisOfDay / 3_600_000, 2); bytes.append(UInt8(ascii: ":"))
        digits(millisOfDay / 60_000 % 60, 2); bytes.append(UInt8(ascii: ":"))
        digits(millisOfDay / 1000 % 60, 2); bytes.append(UInt8(ascii: "."))
        digits(millisOfDay % 1000, 3); bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses an ISO 8601 date with or without fractional seconds.
    public static func parseDate(_ text: String) -> Date? {
        if let date = parseUTCDate(text) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// The common form read without Foundation's parser: `YYYY-MM-DDTHH:MM:SS[.fff…]Z`.
    private static func parseUTCDate(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
              bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for index in range {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        guard bytes.count > 20 else { return Date(timeIntervalSince1970: Double(seconds)) }
        // Fractional seconds: whole units of 10^-n over 10^n in one division, so that
        // milliseconds read back exactly as they were written.
        let places = bytes.count - 21
        guard bytes[19] == UInt8(ascii: "."), (1...9).contains(places), let digits = number(20..<(bytes.count - 1)) else { return nil }
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        return Date(timeIntervalSince1970: Double(seconds * scale + digits) / Double(scale))
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day number since 1970-01-01 (the inverse of the above).
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
