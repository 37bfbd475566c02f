extension RawJSON: ExpressibleByDictionaryLiteral {
    /// Makes an object from a literal: `["name": "Rock Concert"]`.
    public init(dictionaryLiteral elements: (String, RawJSON)...) {
        var dictionary: [String: RawJSON] = [:]
        for (key, value) in elements { dictionary[key] = value }
        self = .dictionary(dictionary)
    }
}

extension RawJSON: ExpressibleByArrayLiteral {
    /// Makes an array from a literal: `[1, "two", true]`.
    public init(arrayLiteral elements: RawJSON...) {
        self = .array(elements)
    }
}

extension RawJSON: ExpressibleByStringLiteral {
    /// Makes a string from a literal.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension RawJSON: ExpressibleByIntegerLiteral {
    /// Makes a number from an integer literal (held as a `Double`).
    public init(integerLiteral value: Int) {
        self = .number(Double(value))
    }
}

extension RawJSON: ExpressibleByFloatLiteral {
    /// Makes a number from a floating-point literal.
    public init(floatLiteral value: Double) {
        self = .number(value)
    }
}

extension RawJSON: ExpressibleByBooleanLiteral {
    /// Makes a boolean from a literal.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}
