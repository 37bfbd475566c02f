/// A JSON value that is strongly typed and `Sendable`: the one type Greenroom uses for
/// extra data, event payloads and custom data everywhere.
///
/// ```swift
/// let extraData: [String: RawJSON] = [
///     "ticket": ["name": "Rock Concert", "price": .double(20)]
/// ]
/// let price = extraData["ticket"]?["price"]?.doubleValue  // 20.0
/// ```
///
/// JSON `null` is ``nil``. Every JSON number is held as a `Double`, so integers beyond
/// ±2^53 lose precision, exactly as in JavaScript.
public indirect enum RawJSON: Hashable, Sendable {
    /// A JSON number.
    case number(Double)
    /// A JSON string.
    case string(String)
    /// A JSON boolean.
    case bool(Bool)
    /// A JSON object.
    case dictionary([String: RawJSON])
    /// A JSON array.
    case array([RawJSON])
    /// JSON `null`.
    case `nil`

    /// Makes a number; an alias of ``number(_:)`` kept for code written against other SDKs.
    public static func double(_ value: Double) -> RawJSON { .number(value) }
}
