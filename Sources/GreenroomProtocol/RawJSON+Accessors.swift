extension RawJSON {
    /// The number, when this value is a number; otherwise `nil`.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number, when this value is a number; an alias of ``numberValue``.
    public var doubleValue: Double? { numberValue }

    /// The string, when this value is a string; otherwise `nil`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean, when this value is a boolean; otherwise `nil`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object, when this value is an object; otherwise `nil`.
    public var dictionaryValue: [String: RawJSON]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The array, when this value is an array; otherwise `nil`.
    public var arrayValue: [RawJSON]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The array as numbers, when this value is an array whose every element is a number.
    ///
    /// Unlike some SDKs, which silently drop elements of the wrong type, this returns `nil`
    /// when any element is not a number, so a malformed array is never mistaken for a shorter one.
    public var numberArrayValue: [Double]? { typedArray(\.numberValue) }

    /// The array as numbers; an alias of ``numberArrayValue``.
    public var doubleArrayValue: [Double]? { numberArrayValue }

    /// The array as strings, when this value is an array whose every element is a string.
    ///
    /// Returns `nil` when any element is not a string (no element is silently dropped).
    public var stringArrayValue: [String]? { typedArray(\.stringValue) }

    /// The array as booleans, when this value is an array whose every element is a boolean.
    ///
    /// Returns `nil` when any element is not a boolean (no element is silently dropped).
    public var boolArrayValue: [Bool]? { typedArray(\.boolValue) }

    /// Whether this value is JSON `null`.
    public var isNil: Bool {
        if case .nil = self { return true }
        return false
    }

    /// The value under `key`, when this value is an object that has it.
    public subscript(key: String) -> RawJSON? {
        dictionaryValue?[key]
    }

    /// The element at `index`, when this value is an array that long.
    public subscript(index: Int) -> RawJSON? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }

    private func typedArray<T>(_ element: (RawJSON) -> T?) -> [T]? {
        guard let array = arrayValue else { return nil }
        var result: [T] = []
        result.reserveCapacity(array.count)
        for item in array {
            guard let value = element(item) else { return nil }
            result.append(value)
        }
        return result
    }
}
