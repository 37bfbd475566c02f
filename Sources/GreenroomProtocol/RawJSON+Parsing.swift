import Foundation

extension RawJSON {
    /// The deepest nesting of arrays and objects a parsed text may have (as Foundation's
    /// decoder); deeper text is refused rather than risking the stack.
    public static let maximumParseDepth = 512

    /// Parses JSON text (RFC 8259) in one pass over its bytes. A key twice in one object
    /// keeps its last value, or, with `refusingDuplicateKeys` (where the text is read as
    /// Foundation's decoder would, which keeps the first), is refused.
    static func parse(_ data: some Collection<UInt8>, refusingDuplicateKeys: Bool = false) throws -> RawJSON {
        let parsed = try data.withContiguousStorageIfAvailable { bytes in
            var parser = RawJSONParser(bytes: bytes, refusingDuplicateKeys: refusingDuplicateKeys)
            return try parser.document()
        }
        if let parsed { return parsed }
        let copy = Array(data)
        return try copy.withUnsafeBufferPointer { bytes in
            var parser = RawJSONParser(bytes: bytes, refusingDuplicateKeys: refusingDuplicateKeys)
            return try parser.document()
        }
    }
}

/// A strict JSON parser straight into ``RawJSON``: no trailing commas, no leading zeros,
/// no control characters or invalid UTF-8 in strings, no lone surrogates, no numbers
/// beyond a `Double`, nothing after the value.
private struct RawJSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let refusingDuplicateKeys: Bool
    var index = 0
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, refusingDuplicateKeys: Bool) {
        self.bytes = bytes
        self.refusingDuplicateKeys = refusingDuplicateKeys
    }

    mutating func document() throws -> RawJSON {
        skipWhitespace()
        let value = try value()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the value") }
        return value
    }

    private mutating func value() throws -> RawJSON {
        guard index < bytes.count else { throw failure("the text ends where a value should start") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .nil
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("a value cannot start with this character")
        }
    }

    private mutating func object() throws -> RawJSON {
        try enter()
        index += 1
        var members: [String: RawJSON] = [:]
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .dictionary(members)
        }
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
            let key = try string()
            skipWhitespace()
            guard try peek() == UInt8(ascii: ":") else { throw failure("expected ':' after an object key") }
            index += 1
            skipWhitespace()
            if members.updateValue(try value(), forKey: key) != nil, refusingDuplicateKeys {
                throw failure("a key appears twice in one object")
            }
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "}") { break }
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or '}' in an object") }
        }
        depth -= 1
        return .dictionary(members)
    }

    private mutating func array() throws -> RawJSON {
        try enter()
        index += 1
        var elements: [RawJSON] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            let next = try peek()
            index += 1
            if next == UInt8(ascii: "]") { break }
            guard next == UInt8(ascii: ",") else { throw failure("expected ',' or ']' in an array") }
        }
        depth -= 1
        return .array(elements)
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= RawJSON.maximumParseDepth else {
            throw failure("nested deeper than \(RawJSON.maximumParseDepth) levels")
        }
    }

    /// A string, `index` at its opening quote; leaves `index` after the closing one.
    private mutating func string() throws -> String {
        index += 1
        let start = index
        // The common case: no escapes, so the bytes between the quotes are the string.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try utf8(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("a control character must be escaped in a string") }
            index += 1
        }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return try buffer.withUnsafeBufferPointer { try utf8($0) }
            case UInt8(ascii: "\\"):
                try escape(into: &buffer)
            case 0..<0x20:
                throw failure("a control character must be escaped in a string")
            default:
                buffer.append(byte)
            }
        }
        throw failure("a string is not closed")
    }

    private mutating func escape(into buffer: inout [UInt8]) throws {
        guard index < bytes.count else { throw failure("a string is not closed") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a high surrogate must be followed by a low one")
                }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("a high surrogate must be followed by a low one") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure("a low surrogate without a high one")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a Unicode scalar") }
            buffer.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw failure("unknown escape in a string")
        }
    }

    private mutating func hex4() throws -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("\\u needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func utf8(_ slice: UnsafeBufferPointer<UInt8>) throws -> String {
        guard let text = String(validating: slice, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
        return text
    }

    /// A number by RFC 8259's grammar: `-? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)?`.
    private mutating func number() throws -> Double {
        let start = index
        var integral = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number cannot have a leading zero") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a fraction needs a digit") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("an exponent needs a digit") }
            skipDigits()
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        // Up to 15 digits an integer is exact in a Double: add it up without a conversion.
        let negative = text[0] == UInt8(ascii: "-")
        if integral, text.count - (negative ? 1 : 0) <= 15 {
            var value: Int64 = 0
            for byte in text where byte != UInt8(ascii: "-") { value = value * 10 + Int64(byte - UInt8(ascii: "0")) }
            return negative ? -Double(value) : Double(value)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw failure("the number does not fit in a Double")
        }
        return value
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("not a JSON literal") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("not a JSON literal")
        }
        index += count
    }

    private func peek() throws -> UInt8 {
        guard index < bytes.count else { throw failure("the text ends too early") }
        return bytes[index]
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"): index += 1
            default: return
            }
        }
    }

    private func failure(_ reason: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "Not valid JSON: \(reason) (at byte \(index))"))
    }
}
