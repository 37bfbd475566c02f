/// The `GREENROOM_*` variables as the configuration reads them: an empty one counts as unset,
/// and one that does not parse is a configuration error that names it.
struct EnvironmentVariables {
    let values: [String: String]

    /// The variable's text, `nil` when unset or empty.
    func text(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The variable parsed as `T`, `nil` when unset or empty.
    /// - Throws: ``GreenroomServerError/invalidConfiguration(_:)`` when it does not parse.
    func value<T: LosslessStringConvertible>(_ name: String) throws -> T? {
        guard let raw = text(name) else { return nil }
        guard let parsed = T(raw) else { throw GreenroomServerError.invalidConfiguration("\(name)=\(raw) is not a valid \(T.self)") }
        return parsed
    }
}
