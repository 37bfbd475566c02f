import Foundation
import GreenroomProtocol
import Logging
import NIOSSL

/// The connection to a Greenroom server: one WebSocket that carries commands, replies and
/// the events of every subscribed stream, and that comes back by itself.
///
/// ```swift
/// let client = GreenroomClient(serverURL: URL(string: "http://127.0.0.1:8080")!)
/// try await client.connect(token: token, tokenProvider: { try await myBackend.freshToken() })
/// let scores = try await client.subscribe(to: "app:scores")
/// for await event in scores.events { print(event.data) }
/// ```
///
/// After a lost connection the client reconnects with jittered, capped backoff, resubscribes
/// every stream from its last position and reports `connected` only when all are resumed.
/// Events are delivered in order and never twice; when the server could not replay a gap,
/// the subscription says so (``SubscriptionUpdate/resubscribed(recovered:)``) and so does
/// the delegate.
public final class GreenroomClient: Sendable {
    struct PendingCommand {
        var continuation: CheckedContinuation<RawJSON, any Error>
        /// Runs in the read loop when the reply arrives, before later frames are handled.
        var onReply: (@Sendable (RawJSON) -> Void)?
    }

    struct State {
        var phase: ConnectionState = .initialized
        var token: String?
        var tokenProvider: TokenProvider?
        var userId: String?
        var socket: WebSocketConnection?
        var nextCommandId: UInt64 = 1
        var pending: [UInt64: PendingCommand] = [:]
        var subscriptions: [String: StreamSubscription] = [:]
        var stateObservers: [UUID: AsyncStream<ConnectionState>.Continuation] = [:]
        var readyWaiters: [UUID: CheckedContinuation<Void, any Error>] = [:]
        var loop: Task<Void, Never>?
        var stopRequested = false
        /// Which of the configuration's server URLs the next attempt uses.
        var serverIndex = 0
        /// The TLS context made from ``ClientConfiguration/tls`` for the first `wss://` attempt.
        var tlsContext: NIOSSLContext?
        weak var delegate: (any GreenroomClientDelegate)?
    }

    /// The client's settings.
    public let configuration: ClientConfiguration
    let logger: Logger
    let state = Locked(State())
    /// The users this client knows its user blocked, whose live messages its channel
    /// controllers leave out.
    let blocked = Locked(Set<String>())
    /// The local store and the queue of offline actions, when ``ClientConfiguration/localStore`` is set.
    let offline: OfflineSupport?

    /// Makes a client for the server at `serverURL` (`http://host:port`).
    public convenience init(serverURL: URL) {
        self.init(configuration: ClientConfiguration(serverURL: serverURL))
    }

    /// Makes a client with a full configuration.
    public init(configuration: ClientConfiguration, logger: Logger = Logger(label: "greenroom.client")) {
        self.configuration = configuration
        self.logger = logger
        offline = configuration.localStore.map { OfflineSupport(folder: $0, limits: configuration.localStoreLimits, logger: logger) }
        offline?.attach(self)
    }

    /// The connection's current state.
    public var connectionState: ConnectionState { state.withLock { $0.phase } }

    /// The token the client connects with (refreshed by the token provider).
    var currentToken: String? { state.withLock { $0.token } }

    /// The id of the connected user (from the token), once connected.
    public var currentUserId: String? { state.withLock { $0.userId } }

    /// The delegate told of connection changes, on the main actor. Held weakly.
    public var delegate: (any GreenroomClientDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The connection's states, starting with the current one, as they change.
    public var connectionStates: AsyncStream<ConnectionState> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionState.self, bufferingPolicy: .unbounded)
        let id = UUID()
        state.withLock { state in
            continuation.yield(state.phase)
            state.stateObservers[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.stateObservers.removeValue(forKey: id) }
        }
        return stream
    }

    func setPhase(_ phase: ConnectionState) {
        let (observers, delegate, changed) = state.withLock { state -> ([AsyncStream<ConnectionState>.Continuation], (any GreenroomClientDelegate)?, Bool) in
            guard state.phase != phase else { return ([], nil, false) }
            state.phase = phase
            return (Array(state.stateObservers.values), state.delegate, true)
        }
        guard changed else { return }
        logger.debug("connection \(phase)")
        if phase == .connected { offline?.wake() }
        for observer in observers { observer.yield(phase) }
        if let delegate {
            Task { @MainActor in delegate.client(self, didChangeConnectionState: phase) }
        }
    }

    func notifyResubscribed(_ stream: String, recovered: Bool) {
        guard let delegate = state.withLock({ $0.delegate }) else { return }
        Task { @MainActor in delegate.client(self, didResubscribe: stream, recovered: recovered) }
    }

    /// Connects with `token` and returns once connected.
    ///
    /// - Parameters:
    ///   - token: a token from the app's backend (`greenroom token USER` in development).
    ///   - tokenProvider: fetches a fresh token when this one expires or is refused; without
    ///     it, an expired token ends the connection with ``ConnectionState/disconnected(_:)``.
    /// - Throws: `GreenroomError` when the token is refused and no provider gives a good
    ///   one, or `timeout` when the server cannot be reached within the command timeout.
    ///   The client keeps trying in the background after a timeout.
    public func connect(token: String, tokenProvider: TokenProvider? = nil) async throws {
        let (start, user) = state.withLock { state -> (Bool, String?) in
            state.token = token
            state.userId = Self.subject(ofToken: token) ?? state.userId
            state.tokenProvider = tokenProvider
            state.stopRequested = false
            return (state.loop == nil, state.userId)
        }
        if let offline, let user { await offline.adopt(user: user) }
        if start {
            setPhase(.connecting)
            let task = Task { await self.runConnectionLoop() }
            state.withLock { $0.loop = task }
        }
        try await waitUntilReady()
    }

    /// Connects with `token`, then calls `completion` (on the main actor) with `nil` or the error.
    public func connect(token: String, tokenProvider: TokenProvider? = nil, completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        Task {
            do {
                try await connect(token: token, tokenProvider: tokenProvider)
                await MainActor.run { completion?(nil) }
            } catch {
                await MainActor.run { completion?(error) }
            }
        }
    }

    /// The user a token names (its `sub` claim), read without checking the signature (the
    /// server checks it).
    static func subject(ofToken token: String) -> String? {
        let parts = token.split(separator: ".")
        guard parts.count == 3 else { return nil }
        guard let data = Base64URL.decode(parts[1]), let claims = try? RawJSON(json: data) else { return nil }
        return claims["sub"]?.stringValue
    }

    /// Closes the connection and stops reconnecting. Commands in flight fail with
    /// `connectionLost`; subscriptions end.
    public func disconnect() async {
        let (loop, socket) = state.withLock { state -> (Task<Void, Never>?, WebSocketConnection?) in
            state.stopRequested = true
            return (state.loop, state.socket)
        }
        await socket?.close(reason: "client disconnected")
        loop?.cancel()
        await loop?.value
        let subscriptions = state.withLock { state -> [StreamSubscription] in
            state.loop = nil
            defer { state.subscriptions.removeAll() }
            return Array(state.subscriptions.values)
        }
        for subscription in subscriptions { subscription.finish() }
        failReadyWaiters(GreenroomError(.notConnected, "the client disconnected"))
        setPhase(.disconnected(nil))
    }

    /// Waits until the connection is ready (connected and resubscribed).
    func waitUntilReady() async throws {
        let id = UUID()
        let timeout = configuration.commandTimeout
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                    let outcome = self.state.withLock { state -> Result<Void, any Error>? in
                        switch state.phase {
                        case .connected: return .success(())
                        case .disconnected(let error) where state.loop == nil || state.stopRequested:
                            return .failure(error ?? GreenroomError(.notConnected, "the client is not connected"))
                        default:
                            state.readyWaiters[id] = continuation
                            return nil
                        }
                    }
                    if let outcome { continuation.resume(with: outcome) }
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                let error = GreenroomError(.timeout, "not connected within \(timeout)")
                let waiter = self.state.withLock { $0.readyWaiters.removeValue(forKey: id) }
                waiter?.resume(throwing: error)
                throw error
            }
            try await group.next()
            group.cancelAll()
        }
    }

    func resumeReadyWaiters() {
        let waiters = state.withLock { state in
            defer { state.readyWaiters.removeAll() }
            return Array(state.readyWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func failReadyWaiters(_ error: GreenroomError) {
        let waiters = state.withLock { state in
            defer { state.readyWaiters.removeAll() }
            return Array(state.readyWaiters.values)
        }
        for waiter in waiters { waiter.resume(throwing: error) }
    }
}
