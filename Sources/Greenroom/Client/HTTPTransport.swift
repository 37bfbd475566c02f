import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Plain HTTP for the few calls that are not on the WebSocket (asking why an upgrade was
/// refused; REST calls of the command-line tool and tests).
public enum HTTPTransport {
    /// Sends a request and returns the body and the status code.
    public static func data(for request: URLRequest) async throws -> (Data, Int) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// The error a REST answer that failed carries in its body (`{"error": {…}}`), or one
    /// naming its status when the body holds none.
    static func failure(_ data: Data, status: Int, from path: String) -> GreenroomError {
        (try? RawJSON(json: data)["error"]?.decode(as: GreenroomError.self)) ?? GreenroomError(.internalError, "HTTP \(status) from \(path)")
    }
}
