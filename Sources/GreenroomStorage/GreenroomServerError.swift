import Foundation

/// Errors the server reports about its own set-up (not about clients' requests).
public enum GreenroomServerError: Error, CustomStringConvertible, Sendable {
    /// A setting is out of range or does not parse.
    case invalidConfiguration(String)
    /// The data directory or a file in it cannot be used.
    case dataDirectory(String)
    /// The database failed.
    case storage(String)

    /// A sentence for the operator.
    public var description: String {
        switch self {
        case .invalidConfiguration(let text): "invalid configuration: \(text)"
        case .dataDirectory(let text): "data directory: \(text)"
        case .storage(let text): "storage: \(text)"
        }
    }
}
