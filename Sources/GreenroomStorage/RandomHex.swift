import Foundation

/// Random lowercase hexadecimal text: secrets, ids and stream epochs.
package enum RandomHex {
    /// `bytes` random bytes from the system's generator, as `2 × bytes` hex digits.
    package static func string(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes * 2)
        var word: UInt64 = 0
        for index in 0..<bytes {
            if index % 8 == 0 { word = generator.next() }
            let byte = UInt8(truncatingIfNeeded: word >> (8 * UInt64(index % 8)))
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// An id that sorts by when it was made: `date`'s milliseconds since 1970 as 11 hex
    /// digits (enough until the year 2527), then `bytes` random bytes as hex digits. Records
    /// keyed by such ids are stored in the order they are made, so a new one goes at the
    /// end of its B-tree instead of onto a page anywhere in it; the random part keeps the
    /// ids unguessable and distinct within a millisecond.
    package static func timeOrdered(_ date: Date, randomBytes bytes: Int) -> String {
        let millis = max(0, min(Int64(date.timeIntervalSince1970 * 1_000), 0xfff_ffff_ffff))
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(11)
        for shift in stride(from: 40, through: 0, by: -4) { text.append(digits[Int((millis >> Int64(shift)) & 0xf)]) }
        return String(decoding: text, as: UTF8.self) + string(bytes: bytes)
    }
}
