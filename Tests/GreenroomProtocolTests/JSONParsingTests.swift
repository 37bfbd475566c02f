import Foundation
import GreenroomProtocol
import Testing

/// RawJSON's own parser and writer, checked against Foundation's `JSONDecoder` and
/// `WireCoding.encoder` (which they replace on the hot paths) and against what JSON forbids.
@Suite("JSON parser and writer")
struct JSONParsingTests {
    /// A deterministic generator (SplitMix64), so a failure repeats.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{1}", "\u{1F}", "é", "€", "😀", "\u{7F}", "{", ",", "]"]

    static func randomValue(_ generator: inout Generator, depth: Int = 0) -> RawJSON {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &generator) {
        case 0: return .nil
        case 1: return .bool(Bool.random(using: &generator))
        case 2:
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: return .number(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)))
            case 1: return .number(Double.random(in: -1e6...1e6, using: &generator))
            case 2: return .number(Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &generator)))
            default: return .number([0, -0.0, 1e300, .leastNonzeroMagnitude, 0.1, 123_456_789_012_345_680, 1e15, 1e16].randomElement(using: &generator)!)
            }
        case 3:
            let length = Int.random(in: 0..<8, using: &generator)
            return .string((0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined())
        case 4:
            return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in randomValue(&generator, depth: depth + 1) })
        default:
            var members: [String: RawJSON] = [:]
            for _ in 0..<Int.random(in: 0..<4, using: &generator) {
                let key = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
                members[key] = randomValue(&generator, depth: depth + 1)
            }
            return .dictionary(members)
        }
    }

    @Test("2,000 random values: written exactly as WireCoding.encoder writes them, read back equal, and read as JSONDecoder reads them")
    func randomRoundTrips() throws {
        var generator = Generator(state: 42)
        for _ in 0..<2000 {
            let value = Self.randomValue(&generator)
            let ours = try value.jsonData()
            let foundation = try WireCoding.encoder.encode(value)
            #expect(ours == foundation, "\(String(decoding: ours, as: UTF8.self)) != \(String(decoding: foundation, as: UTF8.self))")
            #expect(try RawJSON(json: ours) == value)
            #expect(try RawJSON(json: ours) == (try JSONDecoder().decode(RawJSON.self, from: ours)))
        }
    }

    @Test("escapes, surrogate pairs, whitespace and numbers read as JSON defines them")
    func accepts() throws {
        #expect(try RawJSON(json: #""\ud83d\ude00 \u00E9 \/ \b\f\n\r\t""#) == .string("😀 é / \u{8}\u{C}\n\r\t"))
        #expect(try RawJSON(json: " \n\t\r[ 1 , { \"a\" : -0.5e-1 } ] \n") == [1, ["a": -0.05]])
        #expect(try RawJSON(json: "-0") == .number(-0.0))
        #expect(try RawJSON(json: "1E+2") == .number(100))
        #expect(try RawJSON(json: "123456789012345") == .number(123_456_789_012_345))
        #expect(try RawJSON(json: "-1234567890123456789") == .number(Double("-1234567890123456789")!))
        #expect(try RawJSON(json: #"{"a":1,"a":2}"#) == ["a": 2])
        let deep = String(repeating: "[", count: RawJSON.maximumParseDepth) + String(repeating: "]", count: RawJSON.maximumParseDepth)
        #expect(throws: Never.self) { try RawJSON(json: deep) }
    }

    @Test("refuses what JSON forbids, with a DecodingError")
    func refuses() {
        let invalid: [[UInt8]] = [
            Array("-".utf8), Array("1.".utf8), Array("1e+".utf8), Array("-01".utf8), Array("00".utf8), Array("1e400".utf8),
            Array("-1e400".utf8), Array("[1,,2]".utf8), Array(#"{"a":1 "b":2}"#.utf8), Array(#"{1:2}"#.utf8),
            Array(#""\udc00""#.utf8), Array(#""\ud800\u0041""#.utf8), Array(#""\x""#.utf8), Array(#""\u12""#.utf8),
            Array(#""abc"#.utf8), Array("nul".utf8), Array("nulll".utf8), Array("[".utf8), Array("]".utf8), Array("Infinity".utf8),
            [0x22, 0xC3, 0x28, 0x22], [0x22, 0xFF, 0x22], [0x22, 0x0A, 0x22], [0x22, 0x00, 0x22], [0xEF, 0xBB, 0xBF, 0x31],
            Array((String(repeating: "[", count: RawJSON.maximumParseDepth + 1) + String(repeating: "]", count: RawJSON.maximumParseDepth + 1)).utf8),
        ]
        for bytes in invalid {
            #expect(throws: DecodingError.self, "accepted \(bytes)") { try RawJSON(json: Data(bytes)) }
        }
        // A very deep text is refused, not a crash.
        let hostile = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: DecodingError.self) { try RawJSON(json: hostile) }
    }

    @Test("command frames: read as JSONDecoder reads them; bad ones refused with the key at fault")
    func commandFrames() throws {
        let texts = [#"{"id":7,"op":"user.get","args":{"id":"alice","n":[1,null]}}"#, #"{"op":"x","id":0}"#, #"{"id":1,"op":"y","args":null}"#]
        for text in texts {
            #expect(try CommandFrame.parse(Array(text.utf8)) == (try WireCoding.decoder.decode(CommandFrame.self, from: Data(text.utf8))))
        }
        let bad: [(String, String)] = [(#"{"op":"x"}"#, "id"), (#"{"id":1}"#, "op"), (#"{"id":-1,"op":"x"}"#, "id"),
                                       (#"{"id":1.5,"op":"x"}"#, "id"), (#"{"id":"1","op":"x"}"#, "id"), (#"{"id":1,"op":2}"#, "op")]
        for (text, key) in bad {
            do {
                _ = try CommandFrame.parse(Array(text.utf8))
                Issue.record("accepted \(text)")
            } catch let error as DecodingError {
                switch error {
                case .keyNotFound(let missing, _): #expect(missing.stringValue == key)
                case .typeMismatch(_, let context): #expect(context.codingPath.last?.stringValue == key)
                default: Issue.record("\(text): \(error)")
                }
            }
        }
        #expect(throws: DecodingError.self) { try CommandFrame.parse(Array("[1]".utf8)) }
    }

    @Test("server frames: replies, errors and events read as JSONDecoder reads them")
    func serverFrames() throws {
        let at = Date(timeIntervalSince1970: 1_800_000_000.123)
        let event = StreamEvent(stream: "app:x", offset: 3, epoch: "e1", type: "t", data: ["k": [1, "two", .nil]], at: at)
        let eventFrame = try ServerFrame.parse(try WireCoding.encoder.encode(EventFrame(event: event)))
        #expect(eventFrame.event == (try WireCoding.decoder.decode(ServerFrame.self, from: try WireCoding.encoder.encode(EventFrame(event: event)))).event)
        #expect(eventFrame.event?.data == event.data && eventFrame.re == nil)
        let error = try ServerFrame.parse(Array(#"{"re":7,"error":{"code":1800307,"name":"notFound","message":"no"}}"#.utf8))
        #expect(error.re == 7 && error.error?.is(.notFound) == true && error.result == nil)
        let reply = try ServerFrame.parse(Array(#"{"re":8,"result":{"ok":true}}"#.utf8))
        #expect(reply.re == 8 && reply.result == ["ok": true] && reply.error == nil)
        #expect(throws: DecodingError.self) { try ServerFrame.parse(Array(#"{"event":{"stream":"a","offset":1}}"#.utf8)) }
        #expect(throws: DecodingError.self) { try ServerFrame.parse(Array(#"{"re":"x"}"#.utf8)) }
    }
}
