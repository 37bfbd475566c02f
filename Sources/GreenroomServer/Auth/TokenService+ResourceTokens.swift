import Foundation
import GreenroomProtocol

extension TokenService: ResourceTokenIssuer {
    func resourceToken(for identity: Identity, scope: String, ttl: TimeInterval) async throws -> String {
        try await issueResourceToken(for: identity, scope: scope, ttl: ttl).token
    }

    /// A token for `identity` good for `ttl` seconds and only for paths under `scope`: never
    /// past the session's own token, and within the scope the session already had; its
    /// grants are the session's, good under the scope only. REST's playlists and
    /// `token.resource` both issue theirs here.
    func issueResourceToken(for identity: Identity, scope: String, ttl: TimeInterval) async throws -> ResourceToken {
        let lifetime = max(min(ttl, identity.expiresAt.timeIntervalSinceNow), 1)
        let now = Date.wireNow
        let scope = identity.scope ?? scope
        let token = try await issue(userId: identity.userId, ttl: lifetime, grants: identity.grants.sorted(), scope: scope, now: now)
        return ResourceToken(token: token, scope: scope, expiresAt: now.addingTimeInterval(lifetime))
    }

    /// The folders a resource token may be scoped to: one video's files, one livestream's,
    /// or one chat attachment's.
    static func checkResourceScope(_ scope: String) throws {
        for prefix in ["/v1/videos/", "/v1/livestreams/", "/v1/files/"] where scope.hasPrefix(prefix) && scope.hasSuffix("/") {
            let name = scope.dropFirst(prefix.count).dropLast()
            if !name.isEmpty, name.count <= 200, StreamName.isValid(String(name)) || Limits.isValidId(String(name)) { return }
        }
        throw GreenroomError(.invalidParameterValue, "scope must be a video's files (/v1/videos/ID/), a livestream's (/v1/livestreams/STREAM/) or an attachment's (/v1/files/ID/)")
    }
}
