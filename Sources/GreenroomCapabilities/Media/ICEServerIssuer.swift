import Crypto
import Foundation
import GreenroomCore
import GreenroomProtocol

/// Issues the answer of `media.iceServers`: the STUN URLs as configured, and the TURN URLs
/// with a credential for the caller's user in coturn's REST API scheme (coturn runs with
/// `use-auth-secret` and the same `static-auth-secret`), valid for the configured lifetime.
package struct ICEServerIssuer: Sendable {
    let settings: MediaNetworkSettings

    /// An issuer for `settings`.
    package init(_ settings: MediaNetworkSettings) {
        self.settings = settings
    }

    /// The servers for `userId`, its TURN credential expiring a lifetime after `now`.
    package func servers(for userId: String, now: Date = Date()) -> MediaICEServers {
        var servers: [ICEServer] = []
        if !settings.stunURLs.isEmpty { servers.append(ICEServer(urls: settings.stunURLs)) }
        guard settings.issuesTURN, let secret = settings.turnSecret else { return MediaICEServers(iceServers: servers) }
        // Whole seconds: coturn reads the user name's first field as a Unix time.
        let expiry = Int((now.timeIntervalSince1970 + settings.turnCredentialLifetime).rounded(.down))
        let username = "\(expiry):\(userId)"
        servers.append(ICEServer(urls: settings.turnURLs, username: username, credential: Self.password(username, secret: secret)))
        return MediaICEServers(iceServers: servers, expiresAt: Date(timeIntervalSince1970: TimeInterval(expiry)))
    }

    /// coturn's REST API password for `username`: base64 of HMAC-SHA1 keyed with the secret.
    package static func password(_ username: String, secret: String) -> String {
        let code = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Data(code).base64EncodedString()
    }
}
