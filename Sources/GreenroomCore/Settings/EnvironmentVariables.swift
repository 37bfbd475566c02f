import GreenroomStorage

/// The `GREENROOM_*` variables as the configuration reads them: an empty one counts as unset,
/// and one that does not parse is a configuration error that names it.
package struct EnvironmentVariables {
    package let values: [String: String]

    /// The variables of `values` (a process's environment).
    package init(values: [String: String]) {
        self.values = values
    }

    /// The variable's text, `nil` when unset or empty.
    package func text(_ name: String) -> String? {
        values[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The variable parsed as `T`, `nil` when unset or empty.
    /// - Throws: ``GreenroomServerError/invalidConfiguration(_:)`` when it does not parse.
    package func value<T: LosslessStringConvertible>(_ name: String) throws -> T? {
        guard let raw = text(name) else { return nil }
        guard let parsed = T(raw) else { throw GreenroomServerError.invalidConfiguration("\(name)=\(raw) is not a valid \(T.self)") }
        return parsed
    }
}
