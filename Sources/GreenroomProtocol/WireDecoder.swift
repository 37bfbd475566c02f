import Foundation

/// The wire's JSON decoder: reads a value from text already parsed into ``RawJSON`` (by
/// its own parser, one pass), without the detours of Foundation's `JSONDecoder`:
/// `RawJSON` values are taken as they are (Foundation's decoder tries each kind in turn,
/// a thrown error per miss), and dates, URLs and data are recognised by their type.
///
/// It reads only what it reads exactly as `WireCoding.decoder` would. Anything else
/// throws ``Unread``: a value of the wrong kind or a missing key (Foundation's decoder
/// then throws its own error, with its key path and text), an integer of ±2^53 or more
/// (`RawJSON` holds numbers as `Double`, Foundation reads the digits), a `Float` the
/// `Double` does not hold exactly, a `Decimal`. ``WireCoding`` then decodes the text again
/// with Foundation's decoder, so every result and every error is the one it always gave,
/// with one exception: a number RFC 8259 allows that Foundation's parser refuses (`0e1`;
/// it reads `0E+1`) is read, as WebSocket commands always read it.
///
/// Written for speed: under `perf`, `bench store` on PostgreSQL spent 8.8% of the server's
/// samples in Foundation's decoder (commands' arguments 5.0%); with this one the same
/// reads take 4.2% (arguments 2.1%). BENCHMARKS.md has the figures.
package enum WireDecoder {
    /// Thrown where this decoder stops and Foundation's takes over.
    package struct Unread: Error {}

    /// Decodes `type` from `value`. - Throws: ``Unread``, or what the type's own
    /// `init(from:)` throws.
    package static func decode<T: Decodable>(_ type: T.Type, from value: RawJSON) throws -> T {
        try unbox(value, as: T.self, codingPath: [])
    }

    /// One value: the types Foundation's decoder reads in its own way first, told apart by
    /// their type, then the type's own `init(from:)`.
    static func unbox<T: Decodable>(_ value: RawJSON, as type: T.Type, codingPath: [any CodingKey]) throws -> T {
        if T.self == String.self { return try string(value) as! T }
        if T.self == RawJSON.self { return value as! T }
        if T.self == Int.self { return try integer(value, as: Int.self) as! T }
        if T.self == Int64.self { return try integer(value, as: Int64.self) as! T }
        if T.self == Double.self { return try double(value) as! T }
        if T.self == Bool.self { return try bool(value) as! T }
        if T.self == Date.self {
            guard let date = WireCoding.parseDate(try string(value)) else { throw Unread() }
            return date as! T
        }
        if T.self == URL.self {
            guard let url = URL(string: try string(value)) else { throw Unread() }
            return url as! T
        }
        if T.self == Data.self {
            guard let data = Data(base64Encoded: try string(value)) else { throw Unread() }
            return data as! T
        }
        if T.self == Decimal.self { throw Unread() }
        return try T(from: WireValueDecoder(value: value, codingPath: codingPath))
    }

    static func string(_ value: RawJSON) throws -> String {
        guard case .string(let text) = value else { throw Unread() }
        return text
    }

    static func bool(_ value: RawJSON) throws -> Bool {
        guard case .bool(let flag) = value else { throw Unread() }
        return flag
    }

    static func double(_ value: RawJSON) throws -> Double {
        guard case .number(let number) = value else { throw Unread() }
        return number
    }

    static func float(_ value: RawJSON) throws -> Float {
        guard case .number(let number) = value, let float = Float(exactly: number) else { throw Unread() }
        return float
    }

    /// An integer below 2^53 in magnitude, where the `Double` is the text's exact value;
    /// beyond it two texts can give one `Double`, so Foundation's decoder reads the digits.
    static func integer<T: FixedWidthInteger>(_ value: RawJSON, as type: T.Type) throws -> T {
        guard case .number(let number) = value, number.magnitude < 9_007_199_254_740_992,
              let integer = T(exactly: number) else { throw Unread() }
        return integer
    }
}

/// A decoder over one parsed value.
private struct WireValueDecoder: Decoder {
    let value: RawJSON
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let members) = value else { throw WireDecoder.Unread() }
        return KeyedDecodingContainer(WireKeyedDecoding<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw WireDecoder.Unread() }
        return WireUnkeyedDecoding(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        WireSingleDecoding(value: value, codingPath: codingPath)
    }
}

private struct WireKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: RawJSON]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> RawJSON {
        guard let value = members[key.stringValue] else { throw WireDecoder.Unread() }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .nil = try member(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try WireDecoder.bool(member(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try WireDecoder.string(member(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try WireDecoder.double(member(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try WireDecoder.float(member(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try WireDecoder.integer(member(key), as: type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try WireDecoder.integer(member(key), as: type) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try WireDecoder.unbox(member(key), as: T.self, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try WireValueDecoder(value: member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try WireValueDecoder(value: member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    /// As Foundation's: the value under `super`, or `null` when there is none.
    func superDecoder() throws -> any Decoder {
        WireValueDecoder(value: members["super"] ?? .nil, codingPath: codingPath + [WireDecodingKey(stringValue: "super")])
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        WireValueDecoder(value: members[key.stringValue] ?? .nil, codingPath: codingPath + [key])
    }
}

/// Reads an array's elements in order; like Foundation's, an element that fails to decode
/// is not passed over.
private struct WireUnkeyedDecoding: UnkeyedDecodingContainer {
    let elements: [RawJSON]
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(elements: [RawJSON], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }
    /// The current element's coding path.
    private var currentPath: [any CodingKey] { codingPath + [WireDecodingKey(intValue: currentIndex)] }

    private func current() throws -> RawJSON {
        guard currentIndex < elements.count else { throw WireDecoder.Unread() }
        return elements[currentIndex]
    }

    /// Reads the current element with `read` and moves past it only when it was read.
    private mutating func next<T>(_ read: (RawJSON) throws -> T) throws -> T {
        let value = try read(current())
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard case .nil = try current() else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(WireDecoder.bool) }
    mutating func decode(_ type: String.Type) throws -> String { try next(WireDecoder.string) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(WireDecoder.double) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next(WireDecoder.float) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try WireDecoder.integer($0, as: type) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try WireDecoder.integer($0, as: type) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = currentPath
        return try next { try WireDecoder.unbox($0, as: T.self, codingPath: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = currentPath
        return try next { try WireValueDecoder(value: $0, codingPath: path).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = currentPath
        return try next { try WireValueDecoder(value: $0, codingPath: path).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = currentPath
        return try next { WireValueDecoder(value: $0, codingPath: path) }
    }
}

private struct WireSingleDecoding: SingleValueDecodingContainer {
    let value: RawJSON
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        if case .nil = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try WireDecoder.bool(value) }
    func decode(_ type: String.Type) throws -> String { try WireDecoder.string(value) }
    func decode(_ type: Double.Type) throws -> Double { try WireDecoder.double(value) }
    func decode(_ type: Float.Type) throws -> Float { try WireDecoder.float(value) }
    func decode(_ type: Int.Type) throws -> Int { try WireDecoder.integer(value, as: type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: UInt.Type) throws -> UInt { try WireDecoder.integer(value, as: type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try WireDecoder.integer(value, as: type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try WireDecoder.integer(value, as: type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try WireDecoder.unbox(value, as: T.self, codingPath: codingPath)
    }
}

/// An array index or `super` in a coding path.
private struct WireDecodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
