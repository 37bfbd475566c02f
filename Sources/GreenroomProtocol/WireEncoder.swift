import Foundation

/// The wire's JSON encoder: writes exactly what `WireCoding.encoder` (Foundation's
/// `JSONEncoder` with sorted keys, unescaped slashes and ISO 8601 dates) writes, without
/// its detours: values become a small tree that is written once, `RawJSON` is taken as it
/// is, and dates, URLs and data are recognised by their type, not by casts.
///
/// Like Foundation's: integers are written exactly, other numbers as their shortest text,
/// a number that is not finite throws `EncodingError.invalidValue`, a value that encodes
/// nothing is `{}` (and throws at the top level), `Data` is Base64 and a `URL` its string.
enum WireEncoder {
    /// Encodes `value` as compact JSON text (UTF-8).
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let node = try WireNode.make(value, codingPath: [])
        if case .empty = node {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try node.write(to: &output)
        return output
    }

    /// Encodes `value` as a ``RawJSON`` value, without writing text.
    static func raw<T: Encodable>(_ value: T) throws -> RawJSON {
        let node = try WireNode.make(value, codingPath: [])
        if case .empty = node {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return try node.raw()
    }
}

/// One encoded value.
private enum WireNode {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    /// A finite number (the containers refuse the others as they are given).
    case double(Double)
    /// A finite number.
    case float(Float)
    case string(String)
    case raw(RawJSON)
    case object(WireObject)
    case array(WireArray)
    /// A nested or super encoder, read when the tree is written.
    case encoder(WireNodeEncoder)
    /// An encoder that made no container: `{}`.
    case empty

    static func make<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> WireNode {
        // Types JSONEncoder writes in its own way, told apart by their type.
        if T.self == String.self { return .string(value as! String) }
        if T.self == RawJSON.self { return .raw(value as! RawJSON) }
        if T.self == Date.self { return .string(WireCoding.formatDate(value as! Date)) }
        if T.self == URL.self { return .string((value as! URL).absoluteString) }
        if T.self == Data.self { return .string((value as! Data).base64EncodedString()) }
        let encoder = WireNodeEncoder(codingPath: codingPath)
        try value.encode(to: encoder)
        return encoder.node
    }

    func write(to output: inout [UInt8]) throws {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .int(let value):
            if value < 0 { output.append(UInt8(ascii: "-")) }
            Self.write(digitsOf: value.magnitude, to: &output)
        case .uint(let value): Self.write(digitsOf: value, to: &output)
        case .double(let value): try RawJSON.number(value).write(to: &output)
        case .float(let value):
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            output.append(contentsOf: text.utf8)
        case .string(let value): try RawJSON.string(value).write(to: &output)
        case .raw(let value): try value.write(to: &output)
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.sortedMembers().enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try RawJSON.string(member.key).write(to: &output)
                output.append(UInt8(ascii: ":"))
                try member.node.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let array):
            output.append(UInt8(ascii: "["))
            for (position, element) in array.elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                try element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .encoder(let encoder): try encoder.node.write(to: &output)
        case .empty: output.append(contentsOf: "{}".utf8)
        }
    }

    func raw() throws -> RawJSON {
        switch self {
        case .null: return .nil
        case .bool(let value): return .bool(value)
        case .int(let value): return .number(Double(value))
        case .uint(let value): return .number(Double(value))
        case .double(let value): return .number(value)
        case .float(let value): return .number(Double(value.description) ?? Double(value))
        case .string(let value): return .string(value)
        case .raw(let value): return value
        case .object(let object):
            var members: [String: RawJSON] = [:]
            members.reserveCapacity(object.members.count)
            for member in object.members { members[member.key] = try member.node.raw() }
            return .dictionary(members)
        case .array(let array): return .array(try array.elements.map { try $0.raw() })
        case .encoder(let encoder): return try encoder.node.raw()
        case .empty: return .dictionary([:])
        }
    }

    /// A number checked as a container is given it: Foundation's encoder refuses one that is
    /// not finite there, with its coding path.
    static func finite(_ value: Double, _ path: @autoclosure () -> [any CodingKey]) throws -> WireNode {
        guard value.isFinite else { throw notFinite(value, path()) }
        return .double(value)
    }

    static func finite(_ value: Float, _ path: @autoclosure () -> [any CodingKey]) throws -> WireNode {
        guard value.isFinite else { throw notFinite(Double(value), path()) }
        return .float(value)
    }

    static func notFinite(_ value: Double, _ path: [any CodingKey]) -> EncodingError {
        .invalidValue(value, .init(codingPath: path, debugDescription: "Unable to encode \(value) directly in JSON."))
    }

    /// Writes an integer's decimal digits without making a `String` of them.
    static func write(digitsOf value: UInt64, to output: inout [UInt8]) {
        guard value >= 10 else {
            output.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var divisor: UInt64 = 10
        while value / divisor >= 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

/// An object's members, filled by a keyed container (and its nested containers later), in
/// the order they were given: a few members are appended and sorted once, when written,
/// rather than hashed into a dictionary (with numbers keeping no coding path and integers
/// written digit by digit, `bench store` used 4–6% less CPU; BENCHMARKS.md). A key given
/// twice keeps its last value, as in Foundation's encoder.
private final class WireObject {
    var members: [(key: String, node: WireNode)] = []

    func set(_ key: String, _ node: WireNode) {
        members.append((key, node))
    }

    /// The members sorted by their keys' UTF-8 bytes, each key once (its last value).
    func sortedMembers() -> [(key: String, node: WireNode)] {
        let order = members.indices.sorted { left, right in
            let (a, b) = (members[left].key, members[right].key)
            if a == b { return left < right }
            return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
        var sorted: [(key: String, node: WireNode)] = []
        sorted.reserveCapacity(order.count)
        for index in order {
            if let last = sorted.last, last.key == members[index].key {
                sorted[sorted.count - 1] = members[index]
            } else {
                sorted.append(members[index])
            }
        }
        return sorted
    }
}

/// An array's elements, filled by an unkeyed container.
private final class WireArray {
    var elements: [WireNode] = []
}

/// The `Encoder` a value encodes itself to; what it made is ``node``.
private final class WireNodeEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var node: WireNode = .empty

    init(codingPath: [any CodingKey]) {
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: WireObject
        if case .object(let existing) = node {
            object = existing
        } else {
            object = WireObject()
            node = .object(object)
        }
        return KeyedEncodingContainer(WireKeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: WireArray
        if case .array(let existing) = node {
            array = existing
        } else {
            array = WireArray()
            node = .array(array)
        }
        return WireUnkeyedContainer(array: array, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        WireSingleContainer(encoder: self)
    }
}

private struct WireKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: WireObject
    let codingPath: [any CodingKey]

    func encodeNil(forKey key: Key) throws { object.set(key.stringValue, .null) }
    func encode(_ value: Bool, forKey key: Key) throws { object.set(key.stringValue, .bool(value)) }
    func encode(_ value: String, forKey key: Key) throws { object.set(key.stringValue, .string(value)) }
    func encode(_ value: Double, forKey key: Key) throws { object.set(key.stringValue, try .finite(value, codingPath + [key])) }
    func encode(_ value: Float, forKey key: Key) throws { object.set(key.stringValue, try .finite(value, codingPath + [key])) }
    func encode(_ value: Int, forKey key: Key) throws { object.set(key.stringValue, .int(Int64(value))) }
    func encode(_ value: Int8, forKey key: Key) throws { object.set(key.stringValue, .int(Int64(value))) }
    func encode(_ value: Int16, forKey key: Key) throws { object.set(key.stringValue, .int(Int64(value))) }
    func encode(_ value: Int32, forKey key: Key) throws { object.set(key.stringValue, .int(Int64(value))) }
    func encode(_ value: Int64, forKey key: Key) throws { object.set(key.stringValue, .int(value)) }
    func encode(_ value: UInt, forKey key: Key) throws { object.set(key.stringValue, .uint(UInt64(value))) }
    func encode(_ value: UInt8, forKey key: Key) throws { object.set(key.stringValue, .uint(UInt64(value))) }
    func encode(_ value: UInt16, forKey key: Key) throws { object.set(key.stringValue, .uint(UInt64(value))) }
    func encode(_ value: UInt32, forKey key: Key) throws { object.set(key.stringValue, .uint(UInt64(value))) }
    func encode(_ value: UInt64, forKey key: Key) throws { object.set(key.stringValue, .uint(value)) }

    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(key.stringValue, try WireNode.make(value, codingPath: codingPath + [key]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let encoder = WireNodeEncoder(codingPath: codingPath + [key])
        object.set(key.stringValue, .encoder(encoder))
        return encoder.container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let encoder = WireNodeEncoder(codingPath: codingPath + [key])
        object.set(key.stringValue, .encoder(encoder))
        return encoder.unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        let encoder = WireNodeEncoder(codingPath: codingPath + [WireIndexKey(stringValue: "super")])
        object.set("super", .encoder(encoder))
        return encoder
    }

    func superEncoder(forKey key: Key) -> any Encoder {
        let encoder = WireNodeEncoder(codingPath: codingPath + [key])
        object.set(key.stringValue, .encoder(encoder))
        return encoder
    }
}

private struct WireUnkeyedContainer: UnkeyedEncodingContainer {
    let array: WireArray
    let codingPath: [any CodingKey]
    var count: Int { array.elements.count }

    private var nextKey: any CodingKey { WireIndexKey(intValue: array.elements.count) }

    func encodeNil() throws { array.elements.append(.null) }
    func encode(_ value: Bool) throws { array.elements.append(.bool(value)) }
    func encode(_ value: String) throws { array.elements.append(.string(value)) }
    func encode(_ value: Double) throws { array.elements.append(try .finite(value, codingPath + [nextKey])) }
    func encode(_ value: Float) throws { array.elements.append(try .finite(value, codingPath + [nextKey])) }
    func encode(_ value: Int) throws { array.elements.append(.int(Int64(value))) }
    func encode(_ value: Int8) throws { array.elements.append(.int(Int64(value))) }
    func encode(_ value: Int16) throws { array.elements.append(.int(Int64(value))) }
    func encode(_ value: Int32) throws { array.elements.append(.int(Int64(value))) }
    func encode(_ value: Int64) throws { array.elements.append(.int(value)) }
    func encode(_ value: UInt) throws { array.elements.append(.uint(UInt64(value))) }
    func encode(_ value: UInt8) throws { array.elements.append(.uint(UInt64(value))) }
    func encode(_ value: UInt16) throws { array.elements.append(.uint(UInt64(value))) }
    func encode(_ value: UInt32) throws { array.elements.append(.uint(UInt64(value))) }
    func encode(_ value: UInt64) throws { array.elements.append(.uint(value)) }

    func encode<T: Encodable>(_ value: T) throws {
        array.elements.append(try WireNode.make(value, codingPath: codingPath + [nextKey]))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let encoder = WireNodeEncoder(codingPath: codingPath + [nextKey])
        array.elements.append(.encoder(encoder))
        return encoder.container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let encoder = WireNodeEncoder(codingPath: codingPath + [nextKey])
        array.elements.append(.encoder(encoder))
        return encoder.unkeyedContainer()
    }

    func superEncoder() -> any Encoder {
        let encoder = WireNodeEncoder(codingPath: codingPath + [nextKey])
        array.elements.append(.encoder(encoder))
        return encoder
    }
}

private struct WireSingleContainer: SingleValueEncodingContainer {
    let encoder: WireNodeEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func set(_ node: WireNode) { encoder.node = node }

    func encodeNil() throws { set(.null) }
    func encode(_ value: Bool) throws { set(.bool(value)) }
    func encode(_ value: String) throws { set(.string(value)) }
    func encode(_ value: Double) throws { set(try .finite(value, codingPath)) }
    func encode(_ value: Float) throws { set(try .finite(value, codingPath)) }
    func encode(_ value: Int) throws { set(.int(Int64(value))) }
    func encode(_ value: Int8) throws { set(.int(Int64(value))) }
    func encode(_ value: Int16) throws { set(.int(Int64(value))) }
    func encode(_ value: Int32) throws { set(.int(Int64(value))) }
    func encode(_ value: Int64) throws { set(.int(value)) }
    func encode(_ value: UInt) throws { set(.uint(UInt64(value))) }
    func encode(_ value: UInt8) throws { set(.uint(UInt64(value))) }
    func encode(_ value: UInt16) throws { set(.uint(UInt64(value))) }
    func encode(_ value: UInt32) throws { set(.uint(UInt64(value))) }
    func encode(_ value: UInt64) throws { set(.uint(value)) }

    func encode<T: Encodable>(_ value: T) throws {
        set(try WireNode.make(value, codingPath: codingPath))
    }
}

/// An array position (or the `super` key) as a coding key, for coding paths in errors.
private struct WireIndexKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(intValue: Int) {
        self.intValue = intValue
        self.stringValue = "Index \(intValue)"
    }

    init(stringValue: String) {
        self.intValue = nil
        self.stringValue = stringValue
    }
}
