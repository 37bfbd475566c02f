import Foundation
import HTTPTypes
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

/// Puts `Authorization: Bearer CREDENTIAL` on every request: the server's API key (the
/// app's backend) or a client token (the few client calls, such as uploads).
struct BearerAuthentication: ClientMiddleware {
    /// The API key or the client token.
    let credential: String

    /// Authenticates every request with `credential`.
    init(_ credential: String) {
        self.credential = credential
    }

    /// Adds the header and hands the request on.
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(credential)"
        return try await next(request, body, baseURL)
    }
}

extension Client {
    /// The generated client of the Greenroom server at `serverURL`, as the README shows it:
    /// AsyncHTTPClient underneath, every request with `credential`, and dates read with
    /// their milliseconds (the server writes RFC 3339 with fractional seconds, which the
    /// runtime's default transcoder does not read).
    static func greenroom(serverURL: URL, credential: String) -> Client {
        Client(
            serverURL: serverURL,
            configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
            transport: AsyncHTTPClientTransport(),
            middlewares: [BearerAuthentication(credential)])
    }
}
