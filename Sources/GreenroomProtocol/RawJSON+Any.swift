import Foundation

extension RawJSON {
    /// JSON made from a Swift value of one of the JSON-representable types, as a seed's code
    /// builds it (`[String: Any]` or `[String: String]` literals): strings, booleans,
    /// integers within ±2^53, finite floating-point numbers, arrays and string-keyed
    /// dictionaries of these, `NSNull` and `nil` (null), and `RawJSON` itself.
    ///
    /// - Throws: ``GreenroomError`` `invalidParameterValue`, naming where in the value the
    ///   first thing that is not JSON is (`payload["when"] is a Date, which is not JSON`).
    public init(converting value: Any, at path: String = "value") throws {
        switch value {
        case let json as RawJSON: self = json
        case let text as String: self = .string(text)
        case let text as Substring: self = .string(String(text))
        case let flag as Bool: self = .bool(flag)
        case let number as any BinaryInteger:
            // Doubles hold integers exactly up to 2^53; beyond, the number would change.
            guard let exact = Double(exactly: number), abs(exact) <= 9_007_199_254_740_992 else {
                throw GreenroomError(.invalidParameterValue, "\(path) is \(number), beyond the integers JSON numbers hold exactly (±2^53)")
            }
            self = .number(exact)
        case let number as any BinaryFloatingPoint:
            let double = Double(number)
            guard double.isFinite else { throw GreenroomError(.invalidParameterValue, "\(path) is \(double), which is not a JSON number") }
            self = .number(double)
        case let array as [Any]:
            self = .array(try array.enumerated().map { try RawJSON(converting: $0.element, at: "\(path)[\($0.offset)]") })
        case let dictionary as [String: Any]:
            var object: [String: RawJSON] = [:]
            for (key, element) in dictionary { object[key] = try RawJSON(converting: element, at: "\(path)[\"\(key)\"]") }
            self = .dictionary(object)
        case is NSNull: self = .nil
        default:
            // An Optional inside `Any`: nil is null, a value is converted.
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .optional {
                guard let wrapped = mirror.children.first?.value else {
                    self = .nil
                    return
                }
                self = try RawJSON(converting: wrapped, at: path)
                return
            }
            throw GreenroomError(.invalidParameterValue, "\(path) is a \(type(of: value)), which is not JSON")
        }
    }
}
