import Foundation

extension RawJSON {
    /// Writes the value as compact JSON with keys in byte order (as `WireCoding.encoder`
    /// writes it: numbers as their shortest text, `/` not escaped).
    /// - Throws: `EncodingError.invalidValue` for a number that is not finite.
    func write(to output: inout [UInt8]) throws {
        switch self {
        case .nil: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .string(let value): Self.write(string: value, to: &output)
        case .number(let value):
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON numbers must be finite"))
            }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            output.append(contentsOf: text.utf8)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .dictionary(let members):
            output.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (position, key) in keys.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                Self.write(string: key, to: &output)
                output.append(UInt8(ascii: ":"))
                try members[key]!.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func write(string: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20:
                output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
