import Foundation
import GreenroomProtocol

/// Who a verified token speaks for, and what it grants.
public struct Identity: Sendable, Hashable {
    /// The user id (the token's `sub`).
    public var userId: String
    /// Grants such as `app:scores` or `app:*`.
    public var grants: Set<String>
    /// When the token expires.
    public var expiresAt: Date
    /// When the token was issued (its `iat`): a revocation refuses the tokens issued
    /// before it.
    public var issuedAt: Date
    /// For a token made for one resource (a playlist's files): the path prefix it is good
    /// for; `nil` for a session's token.
    public var scope: String?

    /// Makes an identity.
    public init(userId: String, grants: Set<String>, expiresAt: Date, issuedAt: Date = .distantPast, scope: String? = nil) {
        self.userId = userId
        self.grants = grants
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.scope = scope
    }

    /// Whether the token holds `grant`, or the wildcard of its kind (`app:*` for `app:scores`).
    public func has(_ grant: String) -> Bool {
        if grants.contains(grant) { return true }
        let (kind, _) = StreamName.split(grant)
        return grants.contains("\(kind):*")
    }
}
