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

    /// The variable as a comma-separated list, each item trimmed and the empty ones left
    /// out; `nil` when unset or empty.
    package func list(_ name: String) -> [String]? {
        text(name).map { text in text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
    }

    /// The variable parsed as `T`, `nil` when unset or empty.
    /// - Throws: ``GreenroomServerError/invalidConfiguration(_:)`` when it does not parse.
    package func value<T: LosslessStringConvertible>(_ name: String) throws -> T? {
        guard let raw = text(name) else { return nil }
        guard let parsed = T(raw) else { throw GreenroomServerError.invalidConfiguration("\(name)=\(raw) is not a valid \(T.self)") }
        return parsed
    }

    /// The variable as a switch: `1`, `true` or `yes` is on, `0`, `false` or `no` off (any
    /// case); `nil` when unset or empty.
    /// - Throws: ``GreenroomServerError/invalidConfiguration(_:)`` for anything else.
    package func flag(_ name: String) throws -> Bool? {
        guard let raw = text(name) else { return nil }
        guard let value = ["1": true, "true": true, "yes": true, "0": false, "false": false, "no": false][raw.lowercased()] else {
            throw GreenroomServerError.invalidConfiguration("\(name) must be 1 or 0")
        }
        return value
    }
}
