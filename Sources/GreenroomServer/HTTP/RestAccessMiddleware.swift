import GreenroomProtocol
import Hummingbird

/// Who may call a group of REST routes.
enum RestAccess: Sendable {
    /// The app's backend, with the server API key (`Authorization: Bearer KEY`).
    case backend
    /// A user, with a client token (`Authorization: Bearer TOKEN` or `?token=`), within
    /// its budget.
    case user
    /// Either of the two.
    case userOrBackend
}

/// Authenticates every request of a route group once, before its handler, and puts the
/// caller in the context (``GreenroomRequestContext/identity``), as Hummingbird's
/// authenticators do; a request that is not allowed is refused here with 401 (or 429 past
/// its user's budget) and never reaches the handler. Capabilities add their routes to
/// groups made by ``RestRoutes/group(_:for:)`` and read the caller with
/// ``GreenroomRequestContext/caller()``.
struct RestAccessMiddleware: RouterMiddleware {
    typealias Context = GreenroomRequestContext
    let access: RestAccess
    let authentication: any RestAuthentication

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        switch access {
        case .backend:
            try authentication.requireAPIKey(request)
            context.identity = .backend
        case .user:
            context.identity = try await authentication.authenticate(request)
        case .userOrBackend:
            context.identity = try await authentication.authenticateUserOrBackend(request)
        }
        return try await next(request, context)
    }
}

extension GreenroomRequestContext {
    /// The caller the route group authenticated. - Throws: `notAuthenticated` on a route
    /// outside such a group.
    func caller() throws -> Identity {
        guard let identity else { throw GreenroomError(.notAuthenticated, "this route needs a token or the API key") }
        return identity
    }
}
