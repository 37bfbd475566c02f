import Foundation
import NIOSSL

/// Supplies a fresh token when the current one has expired or been refused.
public typealias TokenProvider = @Sendable () async throws -> String

/// How a ``GreenroomClient`` connects, retries and waits.
public struct ClientConfiguration: Sendable {
    /// The server's base URL, `http://host:port` or `https://host`; the WebSocket is at
    /// `/v1/connect` on the same host (`ws://` or `wss://`).
    public var serverURL: URL
    /// More nodes of the same app (several Greenroom nodes on one PostgreSQL database): when
    /// a connection attempt fails, the client tries the next URL, round robin.
    public var alternateServerURLs: [URL] = []
    /// The first reconnect delay; each failed attempt doubles it, up to ``maxReconnectDelay``,
    /// and every delay is jittered (50–100 % of it) so that clients spread out.
    public var initialReconnectDelay: Duration = .milliseconds(250)
    /// The longest reconnect delay.
    public var maxReconnectDelay: Duration = .seconds(10)
    /// How long a command waits for its reply (and for a connection, when sent while reconnecting).
    public var commandTimeout: Duration = .seconds(15)
    /// Whether a command the server refused for its user's rate (`rateLimited` with a
    /// `retryAfterMs`) is sent again after that wait, as long as the command timeout
    /// allows (nothing was done: a refused command changes nothing). Off, the refusal is
    /// thrown at once. Refusals without a wait (quotas: channels or videos per user) are
    /// always thrown.
    public var retriesRateLimitedCommands = true
    /// How long one connection attempt may take, from the TCP connect to the server's answer
    /// to the WebSocket upgrade; an attempt that takes longer is abandoned and retried.
    public var connectTimeout: Duration = .seconds(10)
    /// How often the client pings the server to find out whether the connection still works.
    public var heartbeatInterval: Duration = .seconds(20)
    /// The largest frame the client accepts from the server.
    public var maxInboundFrameBytes: Int = 16 * 1024 * 1024
    /// TLS for `https://` and `wss://` servers: by default the system's trust roots, with
    /// the certificate and the host name verified. To trust a private CA (a test server, a
    /// company's own):
    /// ```swift
    /// config.tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile("ca.pem"))
    /// ```
    /// A certificate that fails verification ends the first connection with `tlsFailure`.
    public var tls: TLSConfiguration = .makeClientConfiguration()
    /// A folder for the client's local store, which makes the client work offline: `nil`
    /// (the default) keeps nothing on the device. With a folder, the client keeps the
    /// user, the channel list, each channel's latest messages and read state, and each
    /// followed stream's position there; screens open from it before the network answers,
    /// and messages, edits, deletions, reactions and `markRead` are queued there and sent,
    /// once each and in order, whenever the client is connected (see the Offline article).
    /// Give each user's store a folder of its own, in the app's Application Support
    /// folder; ``GreenroomClient/logout()`` removes it.
    public var localStore: URL?
    /// How much the local store keeps.
    public var localStoreLimits = LocalStoreLimits()

    /// Makes a configuration for the server at `serverURL`.
    public init(serverURL: URL) {
        self.serverURL = serverURL
    }

    /// Every server URL, the main one first.
    public var serverURLs: [URL] { [serverURL] + alternateServerURLs }

    /// The WebSocket URL, e.g. `ws://127.0.0.1:8080/v1/connect`.
    public var webSocketURL: String { webSocketURL(for: serverURL) }

    /// The WebSocket URL of one of the server URLs.
    public func webSocketURL(for serverURL: URL) -> String {
        var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = (components.scheme == "https" || components.scheme == "wss") ? "wss" : "ws"
        components.path = "/v1/connect"
        components.query = nil
        return components.string ?? "ws://127.0.0.1:8080/v1/connect"
    }

    /// The HTTP URL of a path on the server (or on `server`, one of ``serverURLs``).
    public func httpURL(_ path: String, on server: URL? = nil) -> URL {
        let serverURL = server ?? self.serverURL
        var components = URLComponents(url: serverURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        components.scheme = (components.scheme == "wss" || components.scheme == "https") ? "https" : "http"
        components.path = path
        return components.url ?? serverURL
    }
}

/// The state of a client's connection.
public enum ConnectionState: Sendable, Hashable, CustomStringConvertible {
    /// Made, never connected.
    case initialized
    /// Connecting for the first time.
    case connecting
    /// Connected and every subscription resumed: ready to send and receive.
    case connected
    /// The connection was lost; reconnecting (attempt 1, 2, …) and resuming subscriptions.
    case reconnecting(attempt: Int)
    /// Not connected and not trying: `nil` when the app disconnected, otherwise why
    /// (for example `tokenExpired` with no token provider to get a fresh one).
    case disconnected(GreenroomError?)

    /// Whether commands can be sent now.
    public var isConnected: Bool { self == .connected }

    /// A short description, e.g. `reconnecting(2)`.
    public var description: String {
        switch self {
        case .initialized: "initialized"
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting(let attempt): "reconnecting(\(attempt))"
        case .disconnected(let error): error.map { "disconnected(\($0.name))" } ?? "disconnected"
        }
    }
}

/// Receives a client's connection changes and recovery reports on the main actor.
/// Every method has a default that does nothing.
@MainActor
public protocol GreenroomClientDelegate: AnyObject, Sendable {
    /// The connection state changed.
    func client(_ client: GreenroomClient, didChangeConnectionState state: ConnectionState)
    /// A subscription resumed after a reconnect; when `recovered` is `false` events were
    /// missed (the log no longer held them): reload what the stream describes.
    func client(_ client: GreenroomClient, didResubscribe stream: String, recovered: Bool)
}

extension GreenroomClientDelegate {
    /// Does nothing.
    public func client(_ client: GreenroomClient, didChangeConnectionState state: ConnectionState) {}
    /// Does nothing.
    public func client(_ client: GreenroomClient, didResubscribe stream: String, recovered: Bool) {}
}
