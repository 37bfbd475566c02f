import Foundation
import GreenroomProtocol
import Hummingbird
import Logging
import ServiceLifecycle

/// A capability's REST routes, written for the HTTP server: each capability with routes
/// conforms, and the router adds them all.
protocol CapabilityRoutes: Capability {
    /// Adds its REST routes.
    func addRoutes(_ routes: RestRoutes)
}

/// The REST router as a capability sees it: open routes on ``router``; routes for a
/// caller in a ``group(_:for:)``, whose middleware authenticates each request before the
/// handler and puts the caller in the context; ``resourceTokens`` for the URLs of files.
/// A capability never authenticates a request itself.
struct RestRoutes {
    let router: Router<GreenroomRequestContext>
    /// Issues the short-lived tokens, good for one resource's files, that file URLs carry.
    let resourceTokens: any ResourceTokenIssuer
    private let authentication: any RestAuthentication

    init(router: Router<GreenroomRequestContext>, authentication: any RestAuthentication, resourceTokens: any ResourceTokenIssuer) {
        self.router = router
        self.resourceTokens = resourceTokens
        self.authentication = authentication
    }

    /// The routes under `path` that `access` may call (several groups may share a path).
    func group(_ path: RouterPath, for access: RestAccess) -> RouterGroup<GreenroomRequestContext> {
        router.group(path).add(middleware: RestAccessMiddleware(access: access, authentication: authentication))
    }
}

/// How REST requests prove who they are: the app's backend with the server API key, a
/// user with a client token. Only ``RestAccessMiddleware`` asks.
protocol RestAuthentication: Sendable {
    /// Checks the server API key (`Authorization: Bearer KEY`).
    func requireAPIKey(_ request: Request) throws
    /// The identity of the request's token (`Authorization: Bearer TOKEN` or `?token=`).
    func authenticate(_ request: Request) async throws -> Identity
    /// The app's backend (``Identity/backend``) when `Authorization` carries the API key,
    /// else the identity of the request's token.
    func authenticateUserOrBackend(_ request: Request) async throws -> Identity
}

/// Issues tokens scoped to one resource's files (a playlist and its segments).
protocol ResourceTokenIssuer: Sendable {
    /// A token for `identity` good for `ttl` seconds and only for paths under `scope` (a
    /// playlist's files), with the grants reading them needs.
    func resourceToken(for identity: Identity, scope: String, ttl: TimeInterval) async throws -> String
}
