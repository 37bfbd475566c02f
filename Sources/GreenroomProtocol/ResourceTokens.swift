import Foundation

/// Tokens for one resource's files, for players and image views that cannot set an
/// `Authorization` header: such a URL carries a token in its query, where proxies, Referer
/// headers and histories keep it, so it should never be the session's own.
public enum ResourceTokenOperation {
    /// A short-lived token good only under one resource's path, with the session's user and
    /// grants: ``ResourceTokenArgs`` → ``ResourceToken``.
    public static let issue = WireOperation<ResourceTokenArgs, ResourceToken>("token.resource")
}

/// The arguments of `token.resource`.
public struct ResourceTokenArgs: Codable, Sendable, Hashable {
    /// The path the token is good under: a video's files (`/v1/videos/ID/`), a
    /// livestream's (`/v1/livestreams/STREAM/`) or a chat attachment's (`/v1/files/ID/`).
    public var scope: String
    /// How long it lives, in seconds: 60–43,200 (12 hours), 3,600 when not given; never
    /// past the session's own token.
    public var ttl: Double?

    /// Makes the arguments.
    public init(scope: String, ttl: Double? = nil) {
        self.scope = scope
        self.ttl = ttl
    }

    /// The scope of a video's files.
    public static func video(_ id: String) -> String { "/v1/videos/\(id)/" }

    /// The scope of the files under the folder of `path` (a playlist's path).
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[...slash])
    }
}

/// A token for one resource's files.
public struct ResourceToken: Codable, Sendable, Hashable {
    /// The token: `?token=` on the resource's URLs.
    public var token: String
    /// The path it is good under.
    public var scope: String
    /// When it stops working.
    public var expiresAt: Date

    /// Makes the value.
    public init(token: String, scope: String, expiresAt: Date) {
        self.token = token
        self.scope = scope
        self.expiresAt = expiresAt
    }
}
