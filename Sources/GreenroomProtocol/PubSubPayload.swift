import Foundation

/// A pub/sub message's payload: a JSON object that reads both ways a porting app reads it.
///
/// The vendor's payload is a `[String: Any]`, so the seed reads it with casts; Greenroom's
/// is JSON held as ``RawJSON``, and reads with its accessors. Both compile and both work:
/// ```swift
/// let json = message.payload
/// if !json.isEmpty, let receiverId = json["receiverId"] as? String { … }   // the seed's code
/// let senderId = json["senderId"]?.stringValue                             // RawJSON's accessors
/// let price = json["ticket"]?["price"]?.doubleValue
/// ```
/// A subscript used as a value (`json["receiverId"] as? String`, `let x = json["k"]`) is the
/// vendor's: strings are `String`, booleans `Bool`, numbers `NSNumber` (so `as? Int` and
/// `as? Double` both work, as with `JSONSerialization`), arrays `[Any]`, objects
/// `[String: Any]`, null `NSNull`. Where a `RawJSON` is wanted (`?.stringValue`,
/// comparison with a literal, ``json``), the subscript is RawJSON's.
public struct PubSubPayload: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The payload as JSON.
    public var json: [String: RawJSON]

    /// Makes a payload of JSON.
    public init(_ json: [String: RawJSON] = [:]) {
        self.json = json
    }

    /// Makes a payload from a literal: `["receiverId": "p1", "attempt": 2]`.
    public init(dictionaryLiteral elements: (String, RawJSON)...) {
        self.json = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// Whether it has no keys.
    public var isEmpty: Bool { json.isEmpty }
    /// How many keys it has.
    public var count: Int { json.count }
    /// Its keys, in no particular order.
    public var keys: Dictionary<String, RawJSON>.Keys { json.keys }

    /// The value at `key` as the vendor's `[String: Any]` holds it (see the type's
    /// documentation), or `nil` when the key is absent.
    public subscript(key: String) -> Any? {
        json[key]?.anyValue
    }

    /// The value at `key` as JSON, or `nil` when the key is absent.
    // Disfavoured so that a cast (`as? String`) reads the vendor's form above, while
    // RawJSON's members (`?.stringValue`, `== "x"`) still find this one: it is the only
    // overload they type-check with.
    @_disfavoredOverload
    public subscript(key: String) -> RawJSON? {
        get { json[key] }
        set { json[key] = newValue }
    }
}

extension PubSubPayload: Codable {
    /// Reads a JSON object.
    public init(from decoder: any Decoder) throws {
        self.json = try decoder.singleValueContainer().decode([String: RawJSON].self)
    }

    /// Writes a JSON object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(json)
    }
}

extension RawJSON {
    /// The value as Foundation's JSON parser gives it: `String`, `Bool`, `NSNumber`,
    /// `[Any]`, `[String: Any]` or `NSNull`.
    public var anyValue: Any {
        switch self {
        case .string(let text): text
        case .bool(let flag): flag
        case .number(let number): NSNumber(value: number)
        case .array(let array): array.map(\.anyValue)
        case .dictionary(let object): object.mapValues(\.anyValue)
        case .nil: NSNull()
        }
    }
}
