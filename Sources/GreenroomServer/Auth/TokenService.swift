import Foundation
import GreenroomProtocol
import JWTKit

struct GreenroomClaims: JWTPayload {
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var grants: [String]?
    /// A resource token's path prefix.
    var scope: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        // Expiry is checked by TokenService after the signature, so that a wrongly signed
        // token is reported as invalid, never as merely expired.
    }
}

/// Issues and verifies the HS256 tokens clients connect with.
public struct TokenService: Sendable {
    private let keys: JWTKeyCollection
    /// The secret before the last rotation: tokens it signed are still accepted.
    private let previousKeys: JWTKeyCollection?
    /// The longest a token may live, from its `iat` to its `exp`; `nil` for no limit.
    public let maxLifetime: TimeInterval?

    /// Makes a service that signs with `secret`, of at least
    /// ``Secrets/minimumAppSecretBytes`` bytes (JWTKit stops on a shorter one in debug
    /// builds), also accepts tokens signed with `previousSecret` (a rotation's window), and
    /// refuses tokens that live longer than `maxLifetime` seconds.
    public init(secret: String, previousSecret: String? = nil, maxLifetime: TimeInterval? = nil) async {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        self.keys = keys
        if let previousSecret {
            let previous = JWTKeyCollection()
            await previous.add(hmac: HMACKey(from: previousSecret), digestAlgorithm: .sha256)
            previousKeys = previous
        } else {
            previousKeys = nil
        }
        self.maxLifetime = maxLifetime
    }

    /// Issues a token for `userId`, valid for `ttl` seconds, with `grants`; with `scope`,
    /// good only for requests whose path starts with it.
    public func issue(userId: String, ttl: TimeInterval = 86_400, grants: [String] = [], scope: String? = nil,
                      now: Date = Date()) async throws -> String {
        let claims = GreenroomClaims(
            sub: .init(value: userId), exp: .init(value: now.addingTimeInterval(ttl)), iat: .init(value: now),
            grants: grants.isEmpty ? nil : grants, scope: scope)
        return try await keys.sign(claims)
    }

    /// Verifies a token.
    ///
    /// - Throws: ``GreenroomError`` `invalidToken` (malformed, wrongly signed, `alg: none`,
    ///   a bad user id, a lifetime over ``maxLifetime``) or `tokenExpired`.
    public func verify(_ token: String, now: Date = Date()) async throws -> Identity {
        let claims: GreenroomClaims
        do {
            claims = try await keys.verify(token, as: GreenroomClaims.self)
        } catch {
            guard let previousKeys, let previous = try? await previousKeys.verify(token, as: GreenroomClaims.self) else {
                throw GreenroomError(.invalidToken, "the token is malformed or not signed by this server")
            }
            claims = previous
        }
        guard Limits.isValidId(claims.sub.value) else {
            throw GreenroomError(.invalidToken, "the token's subject is not a valid user id")
        }
        guard claims.exp.value > now else {
            throw GreenroomError(.tokenExpired, "the token expired at \(WireCoding.formatDate(claims.exp.value))")
        }
        if let maxLifetime, claims.exp.value.timeIntervalSince(claims.iat.value) > maxLifetime {
            throw GreenroomError(.invalidToken, "the token lives longer than this server accepts (\(Int(maxLifetime)) s from iat to exp)")
        }
        return Identity(userId: claims.sub.value, grants: Set(claims.grants ?? []), expiresAt: claims.exp.value, issuedAt: claims.iat.value,
                        scope: claims.scope)
    }
}
