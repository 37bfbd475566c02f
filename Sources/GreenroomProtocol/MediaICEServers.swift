import Foundation

/// The answer of `media.iceServers`: what a client gives its peer connections
/// (`RTCConfiguration.iceServers`) to reach the media server from behind NATs and
/// firewalls.
public struct MediaICEServers: Codable, Sendable, Hashable {
    /// The servers, as `RTCIceServer`s: STUN first, then TURN. Empty when the server
    /// names none (clients that reach the media server directly need none).
    public var iceServers: [ICEServer]
    /// When the TURN credentials stop being accepted for new allocations; `nil` without
    /// TURN. Ask again before then to make a new connection (an ICE restart included).
    public var expiresAt: Date?

    /// Makes the answer.
    public init(iceServers: [ICEServer], expiresAt: Date? = nil) {
        self.iceServers = iceServers
        self.expiresAt = expiresAt
    }
}

/// One STUN or TURN server with its URLs, as WebRTC's `RTCIceServer` takes it.
public struct ICEServer: Codable, Sendable, Hashable {
    /// Its URLs: `stun:host:port`, `turn:host:port?transport=udp|tcp`, `turns:host:port?transport=tcp`.
    public var urls: [String]
    /// The TURN user name: coturn's REST API form, `<expiry in Unix seconds>:<user id>`.
    public var username: String?
    /// The TURN password for ``username``.
    public var credential: String?

    /// Makes a server entry.
    public init(urls: [String], username: String? = nil, credential: String? = nil) {
        self.urls = urls
        self.username = username
        self.credential = credential
    }
}
