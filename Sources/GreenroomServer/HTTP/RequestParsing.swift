import GreenroomProtocol

/// How the server reads numbers, ranges and credentials out of a request's query and
/// headers: functions of the text alone (Foundation-free), so that `Fuzz/run` builds them
/// with libFuzzer on their own. Anything out of range is an error or `nil`, never a trap.
enum RequestParsing {
    /// A query parameter's text as a whole number (`nil` when absent), within `range` when
    /// one is given. - Throws: `invalidParameterValue` for anything else, however large.
    static func integer<Value: FixedWidthInteger>(_ text: String?, name: String, in range: ClosedRange<Value>? = nil) throws -> Value? {
        guard let text else { return nil }
        guard let value = Value(text), range?.contains(value) ?? true else {
            let bounds = range.map { " from \($0.lowerBound) to \($0.upperBound)" } ?? ""
            throw GreenroomError(.invalidParameterValue, "\(name) must be a whole number\(bounds)")
        }
        return value
    }

    /// The `Upload-Offset` header: how many bytes the client says the server holds.
    /// - Throws: `invalidParameterValue` when absent, not a number, or negative.
    static func uploadOffset(_ header: String?) throws -> Int64 {
        guard let header, let offset = Int64(header), offset >= 0 else {
            throw GreenroomError(.invalidParameterValue, "the Upload-Offset header is required: the bytes the server holds, from 0")
        }
        return offset
    }

    /// A `Range` header's one range within a file of `size` bytes: `bytes=a-b`, `bytes=a-`
    /// or `bytes=-n`, as the first and last byte; `nil` when it cannot be served (several
    /// ranges, past the end, malformed).
    static func byteRange(_ header: String, size: Int64) -> (first: Int64, last: Int64)? {
        guard header.hasPrefix("bytes="), !header.contains(","), size > 0 else { return nil }
        let parts = header.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int64(parts[1]), suffix > 0 else { return nil }
            return (max(0, size - suffix), size - 1)
        }
        guard let first = Int64(parts[0]), first >= 0, first < size else { return nil }
        let last: Int64
        if parts[1].isEmpty {
            last = size - 1
        } else {
            guard let given = Int64(parts[1]) else { return nil }
            last = min(given, size - 1)
        }
        return last >= first ? (first, last) : nil
    }

    /// The credential of an `Authorization: Bearer CREDENTIAL` header (the scheme in any
    /// case, surrounding spaces trimmed); `nil` when the header uses another scheme.
    static func bearer(_ header: String) -> String? {
        let scheme = Array("bearer ".utf8)
        let bytes = Array(header.utf8)
        let lowered = bytes.prefix(scheme.count).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        guard lowered == scheme else { return nil }
        var credential = bytes[scheme.count...]
        while credential.first == 0x20 || credential.first == 0x09 { credential.removeFirst() }
        while credential.last == 0x20 || credential.last == 0x09 { credential.removeLast() }
        return String(decoding: credential, as: UTF8.self)
    }

    /// `text` with each `%` and two hex digits replaced by that byte, once (a path segment,
    /// RFC 3986); `nil` when an escape is cut short or not hex, or the bytes are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
