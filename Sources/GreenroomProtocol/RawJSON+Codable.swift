import Foundation

extension RawJSON: Codable {
    /// Decodes any JSON value; `null` becomes ``nil``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Each failed attempt costs a thrown error, so the commonest kinds come first;
        // Bool before Double, so that no decoder can turn `true` into 1.
        if container.decodeNil() {
            self = .nil
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode([String: RawJSON].self) {
            self = .dictionary(value)
        } else if let value = try? container.decode([RawJSON].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value")
        }
    }

    /// Encodes the value as JSON. A number that is not finite (NaN, infinity) cannot be
    /// written as JSON and throws `EncodingError.invalidValue`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let value):
            guard value.isFinite else {
                throw EncodingError.invalidValue(value, .init(codingPath: encoder.codingPath, debugDescription: "JSON numbers must be finite"))
            }
            try container.encode(value)
        case .string(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .nil: try container.encodeNil()
        }
    }
}

extension RawJSON {
    /// Parses JSON text (an object, array or scalar at the top level), strictly: a
    /// trailing comma, which Foundation's parser lets through, is refused.
    ///
    /// - Throws: `DecodingError` when the text is not valid JSON.
    public init(json data: Data) throws {
        self = try RawJSON.parse(data)
    }

    /// Parses a JSON string (an object, array or scalar at the top level).
    public init(json string: String) throws {
        var string = string
        self = try string.withUTF8 { try RawJSON.parse($0) }
    }

    /// Encodes any `Encodable` value into its JSON shape.
    public init(encoding value: some Encodable) throws {
        self = try WireEncoder.raw(value)
    }

    /// The value as compact JSON text with sorted keys.
    public func jsonData() throws -> Data {
        Data(try jsonBytes())
    }

    /// The value as compact JSON text with sorted keys.
    public func jsonString() throws -> String {
        String(decoding: try jsonBytes(), as: UTF8.self)
    }

    /// The value as compact JSON text with sorted keys, as UTF-8 bytes.
    public func jsonBytes() throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(64)
        try write(to: &output)
        return output
    }

    /// Decodes this value into a `Decodable` type, as if it had been read from JSON.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        try WireCoding.decode(T.self, from: self)
    }
}
