import Foundation
import GreenroomProtocol
import Testing

/// `WireCoding.decode` (RawJSON's parser and Greenroom's own decoder, with Foundation's
/// `JSONDecoder` behind them) reads every text as `WireCoding.decoder` reads it: the same
/// value, or the same error.
@Suite("Wire decoder")
struct WireDecoderTests {
    /// Every kind of value a Codable type can take from a decoder, read without Foundation.
    struct Everything: Codable, Equatable {
        var int = -9_007_199_254_740_991
        var int8 = Int8.min
        var int16 = Int16.max
        var int32 = Int32.min
        var int64: Int64 = 9_007_199_254_740_991
        var uint = UInt(9_007_199_254_740_991)
        var uint8 = UInt8.max
        var uint16 = UInt16.max
        var uint32 = UInt32.max
        var uint64: UInt64 = 0
        var float: Float = 0.5
        var floats: [Float] = [1, -2.5, 0.375, 65_536.5]
        var doubles: [Double] = [0, -0.0, 0.1, 1e300, -1e-300, 123_456_789.125, 2e21, .leastNonzeroMagnitude]
        var text = "quote \" backslash \\ slash / newline \n tab \t control \u{1} é € 😀 \u{2028}"
        var date = Date(timeIntervalSince1970: 1_795_439_239.932)
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1.5)]
        var url = URL(string: "https://example.com/a/b?c=d&e=%20f")!
        var data = Data([0, 1, 2, 250, 255])
        var missing: String? = nil
        var present: Int? = 7
        var nested: [[String: [Int]]] = [["b": [1, 2], "a": [], "é": [3]], [:]]
        var extra: [String: RawJSON] = ["x": ["y": [1, "two", .nil, true, 2.5]], "": .string("")]
        var optionals: [Int?] = [1, nil, 3]
        var kind = Kind.second
        var custom = Custom(list: [4, 5], inner: "in", base: 9)
        var bool = true
    }

    enum Kind: String, Codable { case first, second }

    /// Nested keyed and unkeyed containers and a super decoder, written and read by hand.
    struct Custom: Codable, Equatable {
        var list: [Int]
        var inner: String
        var base: Int
        enum Keys: String, CodingKey { case outer, list, inner }

        init(list: [Int], inner: String, base: Int) {
            self.list = list
            self.inner = inner
            self.base = base
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            let outer = try container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            inner = try outer.decode(String.self, forKey: .inner)
            var unkeyed = try container.nestedUnkeyedContainer(forKey: .list)
            var list: [Int] = []
            while !unkeyed.isAtEnd { list.append(try unkeyed.decode(Int.self)) }
            self.list = list
            base = try container.superDecoder().singleValueContainer().decode(Int.self)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var outer = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            try outer.encode(inner, forKey: .inner)
            var unkeyed = container.nestedUnkeyedContainer(forKey: .list)
            for item in list { try unkeyed.encode(item) }
            var base = container.superEncoder().singleValueContainer()
            try base.encode(self.base)
        }
    }

    /// Tries an element as one type, then as another: a failed read must not pass over it.
    struct Either: Decodable, Equatable {
        var values: [String]
        init(values: [String]) { self.values = values }
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            var values: [String] = []
            while !container.isAtEnd {
                if let number = try? container.decode(Int.self) {
                    values.append("int \(number)")
                } else if try container.decodeNil() {
                    values.append("null")
                } else {
                    values.append(try container.decode(String.self))
                }
            }
            self.values = values
        }
    }

    struct Wrapped: Codable, Equatable {
        var v: RawJSON?
        var w: [RawJSON?]
    }

    struct Small: Codable, Equatable {
        var a: Int
        var b: String?
        var c: Int8?
    }

    struct Big: Codable, Equatable {
        var i: Int64
        var u: UInt64
    }

    @Test("every kind of value reads as JSONDecoder reads it, and without it")
    func everything() throws {
        let text = try WireCoding.encoder.encode(Everything())
        let foundation = try WireCoding.decoder.decode(Everything.self, from: text)
        #expect(foundation == Everything())
        #expect(try WireCoding.decode(Everything.self, from: text) == foundation)
        // Read by Greenroom's decoder itself, not by Foundation's behind it.
        #expect(try WireDecoder.decode(Everything.self, from: try RawJSON(json: text)) == foundation)
        let either = try WireCoding.decode(Either.self, from: Data(#"[1,"x",null,"y"]"#.utf8))
        #expect(either == Either(values: ["int 1", "x", "null", "y"]))
        #expect(try WireDecoder.decode(Either.self, from: [1, "x", .nil, "y"]) == either)
        // RawJSON's own decoding and a request body's bytes.
        #expect(try (["a": 1, "b": "two"] as RawJSON).decode(as: Small.self) == Small(a: 1, b: "two"))
        #expect(try WireCoding.decode(Small.self, fromBytes: Array(#"{"a":2}"#.utf8)) == Small(a: 2))
    }

    @Test("2,000 random values read back as RawJSON, as typed dictionaries and lists, equal to JSONDecoder's reading")
    func random() throws {
        var generator = JSONParsingTests.Generator(state: 7)
        for _ in 0..<2000 {
            let value = JSONParsingTests.randomValue(&generator)
            let text = try value.jsonData()
            #expect(try WireCoding.decode(RawJSON.self, from: text) == (try WireCoding.decoder.decode(RawJSON.self, from: text)))
            #expect(try WireCoding.decode(RawJSON.self, from: text) == value)
            let wrapped = try WireCoding.encoder.encode(Wrapped(v: value, w: [value, .nil]))
            #expect(try WireCoding.decode([String: RawJSON].self, from: wrapped) ==
                (try WireCoding.decoder.decode([String: RawJSON].self, from: wrapped)))
            #expect(try WireCoding.decode(Wrapped.self, from: wrapped) == (try WireCoding.decoder.decode(Wrapped.self, from: wrapped)))
        }
    }

    /// The outcome of decoding, as text: the value or the error Foundation's decoder gives.
    static func outcome<T: Decodable>(_ type: T.Type, _ text: String, _ decode: (Data) throws -> T) -> String {
        do { return "value \(try decode(Data(text.utf8)))" } catch { return "error \(error)" }
    }

    @Test("what it does not read as Foundation's decoder would is read by Foundation's: the same values, the same errors")
    func sameOutcomes() throws {
        let smalls = [
            #"{"a":1}"#, #"{"a":1,"b":null}"#, #"{"a":1.0,"b":"x"}"#, #"{"a":1e2}"#, #"{"a":-0}"#, #"{"a":1,"a":2}"#,
            #"{"b":"x"}"#, #"{"a":null}"#, #"{"a":"1"}"#, #"{"a":1.5}"#, #"{"a":1,"b":2}"#, #"{"a":1,"c":128}"#,
            #"{"a":1,"c":-129}"#, #"{"a":1,"c":127}"#, #"[1]"#, #"null"#, #"{"a":1,}"#, #"{"a":1"#, "", #"{"a":1} x"#,
            #"{"a":9007199254740993}"#, #"{"a":1e400}"#, #"{"a":true}"#,
        ]
        for text in smalls {
            let ours = Self.outcome(Small.self, text) { try WireCoding.decode(Small.self, from: $0) }
            let theirs = Self.outcome(Small.self, text) { try WireCoding.decoder.decode(Small.self, from: $0) }
            #expect(ours == theirs, "\(text)")
        }
        // Beyond 2^53 a Double cannot tell the digits apart: Foundation's decoder reads them.
        let bigs = [#"{"i":9007199254740993,"u":18446744073709551615}"#, #"{"i":-9223372036854775808,"u":9007199254740992}"#,
                    #"{"i":9223372036854775808,"u":0}"#, #"{"i":1,"u":-1}"#]
        for text in bigs {
            let ours = Self.outcome(Big.self, text) { try WireCoding.decode(Big.self, from: $0) }
            let theirs = Self.outcome(Big.self, text) { try WireCoding.decoder.decode(Big.self, from: $0) }
            #expect(ours == theirs, "\(text)")
        }
        #expect(try WireCoding.decode(Big.self, from: Data(bigs[0].utf8)) == Big(i: 9_007_199_254_740_993, u: .max))
        #expect(throws: WireDecoder.Unread.self) { try WireDecoder.decode(Big.self, from: try RawJSON(json: bigs[0])) }
        // A Float that is not exactly its Double, dates and URLs that do not read, Decimal.
        let floats = [#"[0.1]"#, #"[16777217]"#, #"[1e39]"#, #"[3.4028235e38]"#, #"[0.5]"#]
        for text in floats {
            #expect(Self.outcome([Float].self, text) { try WireCoding.decode([Float].self, from: $0) } ==
                Self.outcome([Float].self, text) { try WireCoding.decoder.decode([Float].self, from: $0) }, "\(text)")
        }
        for text in [#"["2026-11-29T06:00:00Z"]"#, #"["2026-11-29T06:00:00.5+01:00"]"#, #"["yesterday"]"#, #"[1]"#] {
            #expect(Self.outcome([Date].self, text) { try WireCoding.decode([Date].self, from: $0) } ==
                Self.outcome([Date].self, text) { try WireCoding.decoder.decode([Date].self, from: $0) }, "\(text)")
        }
        for text in [#"["https://a.example/x"]"#, #"[""]"#, #"["AAEC"]"#, #"["not base64!"]"#] {
            #expect(Self.outcome([URL].self, text) { try WireCoding.decode([URL].self, from: $0) } ==
                Self.outcome([URL].self, text) { try WireCoding.decoder.decode([URL].self, from: $0) }, "\(text)")
            #expect(Self.outcome([Data].self, text) { try WireCoding.decode([Data].self, from: $0) } ==
                Self.outcome([Data].self, text) { try WireCoding.decoder.decode([Data].self, from: $0) }, "\(text)")
        }
        #expect(try WireCoding.decode([Decimal].self, from: Data("[1.10]".utf8)) == [Decimal(string: "1.10")!])
        // Valid JSON that Foundation's parser alone refuses is read.
        #expect(throws: DecodingError.self) { try WireCoding.decoder.decode([Double].self, from: Data("[0e1]".utf8)) }
        #expect(try WireCoding.decode([Double].self, from: Data("[0e1, 0E+1]".utf8)) == [0, 0])
    }
}
