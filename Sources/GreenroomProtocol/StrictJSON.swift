import Foundation

/// Strict JSON (RFC 8259) where Foundation is lenient: Foundation's parser accepts a
/// trailing comma (`[1,]`, `{"a":1,}`), which is not JSON. Greenroom refuses it everywhere
/// it reads JSON, so that what one client accepts every JSON library accepts.
public enum StrictJSON {
    /// Throws `DecodingError.dataCorrupted` when `data` has a trailing comma in an array
    /// or object. Everything else is left to the JSON parser.
    public static func check(_ data: some Collection<UInt8>) throws {
        var inString = false
        var escaped = false
        var lastSignificant: UInt8 = 0
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    lastSignificant = byte
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                continue
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if lastSignificant == UInt8(ascii: ",") {
                    throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "A trailing comma is not JSON"))
                }
            default:
                break
            }
            lastSignificant = byte
        }
    }
}
