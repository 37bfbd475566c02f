import Foundation
import GreenroomProtocol
import Testing

@Suite("RawJSON")
struct RawJSONTests {
    @Test("every accessor returns its value for its case and nil for every other case")
    func accessors() {
        let values: [RawJSON] = [.number(1.5), .string("s"), .bool(true), .dictionary(["k": 1]), .array([1]), .nil]
        for value in values {
            #expect((value.numberValue != nil) == (value == .number(1.5)))
            #expect((value.doubleValue != nil) == (value == .number(1.5)))
            #expect((value.stringValue != nil) == (value == .string("s")))
            #expect((value.boolValue != nil) == (value == .bool(true)))
            #expect((value.dictionaryValue != nil) == (value == .dictionary(["k": 1])))
            #expect((value.arrayValue != nil) == (value == .array([1])))
            #expect(value.isNil == (value == .nil))
        }
        #expect(RawJSON.number(1.5).numberValue == 1.5)
        #expect(RawJSON.string("s").stringValue == "s")
        #expect(RawJSON.bool(false).boolValue == false)
        #expect(RawJSON.dictionary(["k": 1]).dictionaryValue == ["k": .number(1)])
        #expect(RawJSON.array([1, "a"]).arrayValue == [.number(1), .string("a")])
        #expect(RawJSON.double(20) == .number(20))
        #expect(RawJSON.double(20).doubleValue == 20)
    }

    @Test("typed array accessors need every element to match")
    func typedArrays() {
        #expect(RawJSON.array([1, 2.5, -3]).numberArrayValue == [1, 2.5, -3])
        #expect(RawJSON.array(["a", "b"]).stringArrayValue == ["a", "b"])
        #expect(RawJSON.array([true, false]).boolArrayValue == [true, false])
        #expect(RawJSON.array([]).stringArrayValue == [])
        #expect(RawJSON.array([1, "two"]).numberArrayValue == nil)
        #expect(RawJSON.array(["a", .nil]).stringArrayValue == nil)
        #expect(RawJSON.array([true, 1]).boolArrayValue == nil)
        #expect(RawJSON.string("not an array").stringArrayValue == nil)
        #expect(RawJSON.array([1, 2]).doubleArrayValue == [1, 2])
    }

    @Test("literals: dictionary, array, string, integer (as a Double), float, bool")
    func literals() {
        let value: RawJSON = ["name": "Rock Concert", "price": 20, "ratio": 0.5, "open": true, "tags": ["a", 1], "nested": ["deep": [:]]]
        #expect(value["name"] == .string("Rock Concert"))
        #expect(value["price"] == .number(20))
        #expect(value["ratio"] == .number(0.5))
        #expect(value["open"] == .bool(true))
        #expect(value["tags"] == .array([.string("a"), .number(1)]))
        #expect(value["nested"]?["deep"] == .dictionary([:]))
        let integer: RawJSON = 7
        #expect(integer.numberValue == 7.0)
        #expect(value["missing"] == nil)
        #expect(value["tags"]?[1] == .number(1))
        #expect(value["tags"]?[2] == nil)
        #expect(value["tags"]?[-1] == nil)
        #expect(RawJSON.string("x")["key"] == nil)
    }

    @Test("decodes every kind of JSON value, and null as .nil")
    func decoding() throws {
        let text = #"{"s":"hé \"q\" \u00e9 😀","n":-12.5e2,"i":42,"t":true,"f":false,"z":null,"a":[1,[2,[3]],{"k":null}],"o":{},"e":[],"big":1e308,"tiny":5e-324}"#
        let value = try RawJSON(json: text)
        #expect(value["s"] == .string("hé \"q\" é 😀"))
        #expect(value["n"] == .number(-1250))
        #expect(value["i"] == .number(42))
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["z"] == .nil)
        #expect(value["z"]?.isNil == true)
        #expect(value["a"] == [1, [2, [3]], ["k": .nil]])
        #expect(value["o"] == .dictionary([:]))
        #expect(value["e"] == .array([]))
        #expect(value["big"] == .number(1e308))
        #expect(value["tiny"]?.numberValue == Double.leastNonzeroMagnitude)
        // Top-level scalars are JSON too.
        #expect(try RawJSON(json: "3") == .number(3))
        #expect(try RawJSON(json: #""text""#) == .string("text"))
        #expect(try RawJSON(json: "null") == .nil)
        #expect(try RawJSON(json: "true") == .bool(true))
        // Commas inside strings are just text.
        #expect(try RawJSON(json: #"[",]", "{,}"]"#) == [",]", "{,}"])
        #expect(try RawJSON(json: #"["\\",1]"#) == ["\\", 1])
        // Booleans stay booleans and numbers stay numbers.
        #expect(try RawJSON(json: "[1, true, 0, false]") == [.number(1), .bool(true), .number(0), .bool(false)])
    }

    @Test("rejects what is not JSON")
    func rejects() {
        let invalid = ["", "{", #"{"a":}"#, "[1,]", #"{"a":1,}"#, "[1,\n]", "{'a':1}", "tru", "NaN", "01x", #"{"a" 1}"#, "[1 2]",
                       "[01]", ".5", "+1", "1e", #""\ud800""#, "[1] x", "\"a\tb\""]
        for text in invalid {
            #expect(throws: (any Error).self, "accepted \(text)") { try RawJSON(json: text) }
        }
    }

    @Test("encodes compactly with sorted keys and round-trips")
    func encoding() throws {
        let value: RawJSON = ["b": [1, 2.5, .nil], "a": "x/y", "c": ["z": false]]
        #expect(try value.jsonString() == #"{"a":"x/y","b":[1,2.5,null],"c":{"z":false}}"#)
        #expect(try RawJSON(json: try value.jsonData()) == value)
        let nested = (0..<200).reduce(RawJSON.nil) { inner, _ in .array([inner]) }
        #expect(try RawJSON(json: try nested.jsonData()) == nested)
        let unicode: RawJSON = ["emoji": "😀", "quote": "\"", "newline": "a\nb", "nul": "\u{0}"]
        #expect(try RawJSON(json: try unicode.jsonData()) == unicode)
    }

    @Test("numbers that JSON cannot hold are refused when encoding")
    func nonFinite() {
        for number in [Double.nan, .infinity, -.infinity] {
            #expect(throws: EncodingError.self) { try RawJSON.number(number).jsonData() }
            #expect(throws: EncodingError.self) { try RawJSON.array([.number(number)]).jsonData() }
        }
    }

    @Test("integers are held as Doubles: exact up to 2^53")
    func integerPrecision() throws {
        let exact = try RawJSON(json: "9007199254740992")
        #expect(exact.numberValue == 9_007_199_254_740_992)
        let beyond = try RawJSON(json: "9007199254740993")
        #expect(beyond.numberValue == 9_007_199_254_740_992)
    }

    @Test("Codable models go in and out through RawJSON")
    func codableBridge() throws {
        struct Passenger: Codable, Equatable { var name: String; var age: Int }
        let value = try RawJSON(encoding: Passenger(name: "Ann", age: 31))
        #expect(value == ["age": 31, "name": "Ann"])
        #expect(try value.decode(as: Passenger.self) == Passenger(name: "Ann", age: 31))
        #expect(throws: DecodingError.self) { try RawJSON.string("x").decode(as: Passenger.self) }
    }

    @Test("Hashable: equal values hash equally; dictionaries ignore key order")
    func hashing() throws {
        let a = try RawJSON(json: #"{"x":1,"y":[true,null]}"#)
        let b = try RawJSON(json: #"{"y":[true,null],"x":1.0}"#)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(RawJSON.number(1) != .string("1"))
        #expect(RawJSON.bool(true) != .number(1))
    }
}

@Suite("Wire frames and errors")
struct WireTests {
    @Test("error codes and names are unique and stable")
    func errorCodes() {
        let codes = ErrorCode.allCases
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(Set(codes.map(\.name)).count == codes.count)
        #expect(ErrorCode.invalidParameterValue.rawValue == 1800300)
        #expect(ErrorCode.notAuthenticated.rawValue == 1800303)
        #expect(ErrorCode.liveEventIdNotFound.rawValue == 2800100)
        #expect(ErrorCode.actionNotAllowedInCurrentState.rawValue == 2800101)
        #expect(ErrorCode.actionNotAllowedForParticipant.rawValue == 2800102)
        let error = GreenroomError(.notFound, "no user")
        #expect(error.description == "notFound (1800307): no user")
        #expect(error.is(.notFound) && !error.is(.timeout))
    }

    @Test("frames encode and decode as documented")
    func frames() throws {
        let command = CommandFrame(id: 7, op: "user.get", args: ["id": "alice"])
        #expect(String(decoding: try WireCoding.encoder.encode(command), as: UTF8.self) == #"{"args":{"id":"alice"},"id":7,"op":"user.get"}"#)
        let reply = try WireCoding.decoder.decode(ServerFrame.self, from: Data(#"{"re":7,"error":{"code":1800307,"name":"notFound","message":"no"}}"#.utf8))
        #expect(reply.re == 7 && reply.error?.is(.notFound) == true && reply.event == nil)
        let at = Date(timeIntervalSince1970: 1_800_000_000.123)
        let event = StreamEvent(stream: "app:x", offset: 3, epoch: "e1", type: "t", data: [1], at: at)
        let decoded = try WireCoding.decoder.decode(ServerFrame.self, from: try WireCoding.encoder.encode(EventFrame(event: event)))
        #expect(decoded.event?.offset == 3)
        #expect(abs((decoded.event?.at.timeIntervalSince1970 ?? 0) - at.timeIntervalSince1970) < 0.001)
        #expect(WireCoding.parseDate("2026-11-22T14:13:19Z") != nil)
        #expect(WireCoding.parseDate("yesterday") == nil)
        #expect(WireCoding.formatDate(Date(timeIntervalSince1970: 1_800_000_000.0996)) == "2027-01-15T08:00:00.100Z")
        #expect(WireCoding.formatDate(Date(timeIntervalSince1970: 1_800_000_000)) == "2027-01-15T08:00:00.000Z")
        // Formatting what was parsed gives the same text, for every millisecond.
        for millis in 0..<1000 {
            let text = "2026-11-22T14:13:19.\(String(millis + 1000).dropFirst())Z"
            let parsed = try #require(WireCoding.parseDate(text))
            #expect(WireCoding.formatDate(parsed) == text)
            #expect(WireCoding.parseDate(WireCoding.formatDate(parsed)) == parsed)
        }
    }

    @Test("stream names and ids are validated")
    func names() {
        #expect(StreamName.isValid("app:scores"))
        #expect(StreamName.isValid("user:alice@example.com"))
        #expect(!StreamName.isValid(""))
        #expect(!StreamName.isValid("app:a b"))
        #expect(!StreamName.isValid("app:*"))
        #expect(!StreamName.isValid(String(repeating: "a", count: 201)))
        #expect(StreamName.split("channel:a:b") == ("channel", "a:b"))
        #expect(Limits.isValidId("user_1-2.x@y"))
        #expect(!Limits.isValidId("white space"))
        #expect(!Limits.isValidId(String(repeating: "a", count: 129)))
        #expect(Limits.checkExtraData(["ok": 1]) == nil)
        #expect(Limits.checkExtraData(["id": 1])?.is(.reservedKey) == true)
        #expect(Limits.checkExtraData(["x": .string(String(repeating: "a", count: 6000))])?.is(.payloadTooLarge) == true)
        #expect(Limits.checkExtraData(["x": .number(.nan)])?.is(.invalidParameterValue) == true)
    }
}
