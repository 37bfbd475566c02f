import Foundation
import GreenroomProtocol

extension CommandRouter {
    /// `token.resource`: a short-lived token for one resource's files (see
    /// ``ResourceTokenOperation``). The token grants nothing the session lacks: it carries
    /// the session's user and grants, and each request with it is checked as the session's
    /// would be, under its scope only.
    mutating func registerResourceTokenOperations() {
        on(ResourceTokenOperation.issue) { (context, args: ResourceTokenArgs) -> ResourceToken in
            try ServerCore.checkResourceScope(args.scope)
            let ttl = args.ttl ?? 3_600
            guard ttl.isFinite, (60...43_200).contains(ttl) else {
                throw GreenroomError(.invalidParameterValue, "ttl must be 60–43,200 seconds")
            }
            return try await context.core.issueResourceToken(for: context.identity, scope: args.scope, ttl: ttl)
        }
    }
}

extension ServerCore {
    /// A token for `identity` good for `ttl` seconds and only for paths under `scope`: never
    /// past the session's own token, and within the scope the session already had; its
    /// grants are the session's, good under the scope only. REST's playlists and
    /// `token.resource` both issue theirs here.
    func issueResourceToken(for identity: Identity, scope: String, ttl: TimeInterval) async throws -> ResourceToken {
        let lifetime = max(min(ttl, identity.expiresAt.timeIntervalSinceNow), 1)
        let now = Date.wireNow
        let scope = identity.scope ?? scope
        let token = try await tokens.issue(userId: identity.userId, ttl: lifetime, grants: identity.grants.sorted(), scope: scope, now: now)
        return ResourceToken(token: token, scope: scope, expiresAt: now.addingTimeInterval(lifetime))
    }

    /// The folders a resource token may be scoped to: one video's files, or one livestream's.
    static func checkResourceScope(_ scope: String) throws {
        for prefix in ["/v1/videos/", "/v1/livestreams/"] where scope.hasPrefix(prefix) && scope.hasSuffix("/") {
            let name = scope.dropFirst(prefix.count).dropLast()
            if !name.isEmpty, name.count <= 200, StreamName.isValid(String(name)) || Limits.isValidId(String(name)) { return }
        }
        throw GreenroomError(.invalidParameterValue, "scope must be a video's files (/v1/videos/ID/) or a livestream's (/v1/livestreams/STREAM/)")
    }
}
