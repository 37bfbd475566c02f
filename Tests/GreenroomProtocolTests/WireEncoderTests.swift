import Foundation
import GreenroomProtocol
import Testing

/// `WireCoding.encode` (Greenroom's own encoder) writes the very bytes Foundation's
/// `JSONEncoder`, set up as `WireCoding.encoder`, writes, and fails where it fails.
@Suite("Wire encoder")
struct WireEncoderTests {
    /// Every kind of value a Codable type can hand an encoder.
    struct Everything: Encodable {
        var int = Int.min
        var int8 = Int8.max
        var int16 = Int16.min
        var int32 = Int32.max
        var int64 = Int64.max
        var uint = UInt.max
        var uint8 = UInt8.max
        var uint16 = UInt16.max
        var uint32 = UInt32.max
        var uint64 = UInt64.max
        var float: Float = 0.1
        var floats: [Float] = [1, -2.5, 3.4028235e38, .leastNonzeroMagnitude]
        var doubles: [Double] = [0, -0.0, 0.1, 1e300, -1e-300, 123_456_789.125, 2e21, .leastNonzeroMagnitude, 9_007_199_254_740_992]
        var text = "quote \" backslash \\ slash / newline \n tab \t control \u{1} \u{1F} é € 😀 \u{2028}"
        var date = Date(timeIntervalSince1970: 1_795_439_239.932)
        var dates = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1.5)]
        var url = URL(string: "https://example.com/a/b?c=d&e=%20f")!
        var data = Data([0, 1, 2, 250, 255])
        var missing: String? = nil
        var present: Int? = 7
        var explicitNull: String?? = .some(nil)
        var nested: [[String: [Int]]] = [["b": [1, 2], "a": [], "é": [3], "B": [4], "aa": [5]], [:]]
        var extra: [String: RawJSON] = ["x": ["y": [1, "two", .nil, true, 2.5]], "": .string("")]
        var empty = Nothing()
        var emptyList: [Nothing] = [Nothing(), Nothing()]
        var custom = Custom()
        var bool = true

        enum CodingKeys: String, CodingKey {
            case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float, floats, doubles, date, dates, url, data
            case missing, present, nested, extra, empty, emptyList, custom, bool
            case explicitNull = "explicit\"Null"
            case text = "weird key \n é"
        }
    }

    /// Encodes nothing: `{}`.
    struct Nothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    /// Uses nested containers, filled after they are made, and super encoders.
    struct Custom: Encodable {
        enum Keys: String, CodingKey { case outer, list, base, single }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            var outer = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            var list = container.nestedUnkeyedContainer(forKey: .list)
            try outer.encode("late", forKey: .single)
            try list.encode(1)
            var inner = list.nestedContainer(keyedBy: Keys.self)
            try inner.encodeNil(forKey: .base)
            try list.encode("after")
            var deeper = list.nestedUnkeyedContainer()
            try deeper.encode(2.5)
            try "from super".encode(to: container.superEncoder(forKey: .base))
            try 42.encode(to: container.superEncoder())
            var single = container.superEncoder(forKey: .single).singleValueContainer()
            try single.encode(UInt8(9))
        }
    }

    func expectSame<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ours = try WireCoding.encode(value)
        let foundation = try WireCoding.encoder.encode(value)
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: foundation, as: UTF8.self), sourceLocation: sourceLocation)
    }

    @Test("every kind of value, nested containers and super encoders, byte for byte")
    func everything() throws {
        try expectSame(Everything())
        try expectSame([Everything(), Everything()])
        try expectSame(["k": Everything()])
        try expectSame(Optional<Int>.none)
        try expectSame("top-level string")
        try expectSame(UInt64.max)
        try expectSame(Date(timeIntervalSince1970: 1_000_000_000.5))
        try expectSame(RawJSON.dictionary(["b": 1, "a": [.nil]]))
    }

    @Test("2,000 random JSON values, inside a struct and alone, byte for byte; RawJSON(encoding:) is what parsing the text gives")
    func randomValues() throws {
        struct Holder: Encodable {
            var value: RawJSON
            var values: [RawJSON]
            var map: [String: RawJSON]
        }
        var generator = JSONParsingTests.Generator(state: 0xC0FFEE)
        for _ in 0..<2_000 {
            let value = JSONParsingTests.randomValue(&generator)
            try expectSame(value)
            try expectSame(Holder(value: value, values: [value, .nil], map: ["v": value]))
            let holder = Holder(value: value, values: [value], map: ["v": value])
            #expect(try RawJSON(encoding: holder) == RawJSON(json: try WireCoding.encoder.encode(holder)))
        }
    }

    @Test("the protocol's own frames and records, byte for byte")
    func protocolTypes() throws {
        let now = Date(timeIntervalSince1970: 1_795_439_239.932)
        let message = ChatMessage(id: "m1", channelId: "general", senderId: "alice", text: "hi / \"there\"",
                                  extraData: ["flight": ["no": "BA117", "seats": [1, 2]]], sequence: 42, createdAt: now, updatedAt: now)
        try expectSame(message)
        try expectSame(ReplyFrame(re: 7, result: message))
        try expectSame(ErrorFrame(re: 9, error: GreenroomError(.notFound, "no such thing")))
        let event = StreamEvent(stream: "channel:general", offset: UInt64(1) << 60, epoch: "e1", type: "message.new",
                                data: try RawJSON(encoding: message), at: now)
        try expectSame(EventFrame(event: event))
        try expectSame([event, event])
    }

    @Test("what Foundation refuses is refused: numbers that are not finite, a top-level value that encodes nothing")
    func refusals() throws {
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try WireCoding.encode(["x": bad]) }
            #expect(throws: EncodingError.self) { try WireCoding.encode([bad]) }
            #expect(throws: EncodingError.self) { try RawJSON(encoding: ["x": bad]) }
            #expect(throws: EncodingError.self) { try WireCoding.encoder.encode(["x": bad]) }
        }
        #expect(throws: EncodingError.self) { try WireCoding.encode(Float.nan) }
        #expect(throws: EncodingError.self) { try WireCoding.encode(Nothing()) }
        #expect(throws: EncodingError.self) { try WireCoding.encoder.encode(Nothing()) }
        // Refused where the container is given the number, as Foundation's encoder refuses
        // it: a type that catches the error there goes on.
        #expect(try WireCoding.encode(Forgiving()) == (try WireCoding.encoder.encode(Forgiving())))
        #expect(String(decoding: try WireCoding.encode(Forgiving()), as: UTF8.self) == #"{"fallback":"nan","list":[1]}"#)
    }

    /// Encodes a key twice and catches a number the encoder refuses.
    struct Forgiving: Encodable {
        enum Keys: String, CodingKey { case value, fallback, list }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            do { try container.encode(Double.nan, forKey: .value) } catch { try container.encode("nan", forKey: .fallback) }
            try container.encode([0], forKey: .list)
            try container.encode([1], forKey: .list)
        }
    }

    @Test("a key given twice keeps its last value, a nested container's too")
    func keysTwice() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case b, a, base = "super" }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode(1, forKey: .a)
                var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .b)
                try nested.encode("x", forKey: .a)
                try container.encode(2, forKey: .a)
                var again = encoder.container(keyedBy: Keys.self)
                try again.encode(true, forKey: .b)
                var base = container.superEncoder().singleValueContainer()
                try base.encode(3)
            }
        }
        let ours = try WireCoding.encode(Twice())
        #expect(ours == (try WireCoding.encoder.encode(Twice())), "\(String(decoding: ours, as: UTF8.self))")
        #expect(try RawJSON(encoding: Twice()) == (try RawJSON(json: ours)))
    }

    /// An event written around its data's text, or straight from its fields, and the frame
    /// that carries it, are the bytes the encoder writes for them.
    @Test("an event's wire JSON, around its data's text or from its fields, and its frame's, are the encoder's")
    func eventAroundItsData() throws {
        let events = [
            StreamEvent(stream: "app:scores", offset: 1, epoch: "e49c49d0", type: "goal",
                        data: ["team": "home", "minute": 17], at: Date(timeIntervalSince1970: 1_795_439_239.932)),
            StreamEvent(stream: "channel:\"quoted\" é / 😀", offset: UInt64.max, epoch: "", type: "type \u{1} \n \u{2028}",
                        data: .array([.nil, .bool(false), .number(-0.5), .string("\\")]), at: Date(timeIntervalSince1970: -1.5)),
            StreamEvent(stream: "s", offset: 0, epoch: "x", type: "t", data: .nil, at: Date(timeIntervalSince1970: 0)),
            StreamEvent(stream: "app:fanout", offset: 42, epoch: "e", type: "bench",
                        data: ["z": ["b": 1, "a": [1.25, "x/y", 1e21]], "é": true, "B": .nil, "t": 1_795_439_239.932_123],
                        at: Date(timeIntervalSince1970: 253_402_300_800.5)),
        ]
        for event in events {
            let spliced = try event.wireJSON(dataJSON: try event.data.jsonBytes())
            let encoded = Array(try WireCoding.encode(event))
            #expect(spliced == encoded, "\(String(decoding: spliced, as: UTF8.self))")
            #expect(try WireCoding.decode(StreamEvent.self, fromBytes: spliced).data == event.data)
            #expect(try event.wireJSON() == encoded)
            let frame = try EventFrame(event: event).wireJSON()
            let encodedFrame = Array(try WireCoding.encode(EventFrame(event: event)))
            #expect(frame == encodedFrame, "\(String(decoding: frame, as: UTF8.self))")
        }
    }
}
