import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdCore
import Synchronization

/// Who a request or a connection request is: the identity of a client token (verified, not
/// revoked, used within its scope, while the node is not shutting down), or the app's
/// backend with the server API key. REST routes reach it only through
/// ``RestAccessMiddleware``, and the WebSocket upgrade through ``Sessions``.
final class Authenticator: RestAuthentication {
    private let tokens: TokenService
    private let secrets: Secrets
    private let storage: any GreenroomStorage
    private let rateLimiter: RateLimiter
    /// Set when a graceful shutdown begins: from then on tokens are refused with `unavailable`.
    private let draining = Atomic<Bool>(false)

    init(tokens: TokenService, secrets: Secrets, storage: any GreenroomStorage, rateLimiter: RateLimiter) {
        self.tokens = tokens
        self.secrets = secrets
        self.storage = storage
        self.rateLimiter = rateLimiter
    }

    /// Refuses every token from now on with `unavailable` (reconnect shortly, to another
    /// node): the node is shutting down.
    func beginDraining() {
        draining.store(true, ordering: .relaxed)
    }

    /// The token of a request: `Authorization: Bearer TOKEN` or `?token=TOKEN` (browsers
    /// cannot set headers on a WebSocket).
    static func token(authorization: String?, uri: URI) throws -> String {
        if let header = authorization {
            guard let token = RequestParsing.bearer(header) else {
                throw GreenroomError(.invalidToken, "the Authorization header must be 'Bearer TOKEN'")
            }
            return token
        }
        if let token = uri.queryParameters["token"], !token.isEmpty { return String(token) }
        throw GreenroomError(.notAuthenticated, "connect with a token: Authorization: Bearer TOKEN, or ?token=TOKEN")
    }

    /// The identity of a token, unless it was revoked (``TokenRevocation``) or is used
    /// outside its scope.
    func authenticate(authorization: String?, uri: URI) async throws -> Identity {
        let identity = try await tokens.verify(try Self.token(authorization: authorization, uri: uri))
        if let scope = identity.scope {
            let path = uri.path.removingPercentEncoding ?? uri.path
            guard path.hasPrefix(scope) || uri.path.hasPrefix(scope) else {
                throw GreenroomError(.invalidToken, "this token is for \(scope) only")
            }
        }
        try await TokenRevocation.check(identity, in: storage)
        if draining.load(ordering: .relaxed) {
            throw GreenroomError(.unavailable, "the server is shutting down; reconnect shortly")
        }
        return identity
    }

    /// The identity of a request's token, within its user's budget (uploads for creating a
    /// video or an attachment and for `/v1/uploads/…` changes, reads for `GET` and `HEAD`,
    /// writes otherwise).
    func authenticate(_ request: Request) async throws -> Identity {
        let identity = try await authenticate(authorization: request.headers[.authorization], uri: request.uri)
        try rateLimiter.check(identity, Self.operationClass(of: request))
        return identity
    }

    /// The budget a REST request with a client token counts against.
    static func operationClass(of request: Request) -> OperationClass {
        let reading = request.method == .get || request.method == .head
        let path = request.uri.path
        let creating = ["/v1/videos", "/v1/videos/", "/v1/files", "/v1/files/"].contains(path)
        if !reading, path.hasPrefix("/v1/uploads/") || (request.method == .post && creating) {
            return .uploads
        }
        return reading ? .reads : .writes
    }

    func authenticateUserOrBackend(_ request: Request) async throws -> Identity {
        if carriesAPIKey(request) == true { return .backend }
        return try await authenticate(request)
    }

    func requireAPIKey(_ request: Request) throws {
        switch carriesAPIKey(request) {
        case nil: throw GreenroomError(.notAuthenticated, "this endpoint needs the server API key (Authorization: Bearer KEY)")
        case false: throw GreenroomError(.invalidToken, "the API key is not this server's")
        case true: return
        }
    }

    /// Whether `Authorization: Bearer …` carries this server's API key (the current one or,
    /// during a rotation, the previous); `nil` without a bearer.
    private func carriesAPIKey(_ request: Request) -> Bool? {
        guard let given = request.headers[.authorization].flatMap(RequestParsing.bearer), !given.isEmpty else { return nil }
        return secrets.isAPIKey(given)
    }
}
