import Foundation
import GreenroomProtocol
import Logging
import NIOSSL

extension GreenroomClient {
    /// What ended one connection attempt.
    enum Ending {
        /// Reconnect after a delay (network failure, server restart, slow consumer, …).
        case retry
        /// The token was refused or expired: get a fresh one, then reconnect.
        case refreshToken(GreenroomError)
        /// Stop: the app disconnected, or the server refused for good.
        case stop(GreenroomError?)
    }

    /// The TLS context of ``ClientConfiguration/tls``, made once.
    private func tlsContext() throws -> NIOSSLContext {
        if let made = state.withLock({ $0.tlsContext }) { return made }
        do {
            let context = try NIOSSLContext(configuration: configuration.tls)
            state.withLock { $0.tlsContext = context }
            return context
        } catch {
            throw WebSocketTransport.Failure(description: "the TLS settings (ClientConfiguration.tls) cannot be used: \(error)", tls: true)
        }
    }

    /// Connects, serves the connection, and reconnects until stopped.
    func runConnectionLoop() async {
        var failures = 0
        var everConnected = false
        while !Task.isCancelled, !state.withLock({ $0.stopRequested }) {
            if failures > 0 || everConnected {
                setPhase(everConnected ? .reconnecting(attempt: failures + 1) : .connecting)
            }
            let (ending, connected) = await connectOnce(firstConnection: !everConnected)
            connectionLost()
            if !connected {
                // This node did not take us: the next attempt tries the next one.
                state.withLock { $0.serverIndex = ($0.serverIndex + 1) % configuration.serverURLs.count }
            }
            if connected {
                everConnected = true
                failures = 0
            }
            if case .stop = ending {} else if everConnected {
                // Not ready any more, even while a fresh token or the backoff is awaited.
                setPhase(.reconnecting(attempt: failures + 1))
            }
            switch ending {
            case .stop(let error):
                finishLoop(error)
                return
            case .refreshToken(let error):
                guard let provider = state.withLock({ $0.tokenProvider }) else {
                    finishLoop(error)
                    return
                }
                do {
                    let token = try await provider()
                    state.withLock { state in
                        state.token = token
                        state.userId = Self.subject(ofToken: token) ?? state.userId
                    }
                    if !connected { failures += 1 }
                } catch {
                    logger.warning("token provider failed: \(error)")
                    failures += 1
                }
                if failures > 1, !(await backoff(failures)) { break }
            case .retry:
                if !connected { failures += 1 }
                if !(await backoff(max(failures, 1))) { break }
            }
        }
        finishLoop(nil)
    }

    private func finishLoop(_ error: GreenroomError?) {
        let subscriptions = state.withLock { state -> [StreamSubscription] in
            state.loop = nil
            state.stopRequested = true
            defer { state.subscriptions.removeAll() }
            return Array(state.subscriptions.values)
        }
        for subscription in subscriptions { subscription.finish() }
        setPhase(.disconnected(error))
        failReadyWaiters(error ?? GreenroomError(.notConnected, "the client disconnected"))
    }

    /// Sleeps the jittered backoff for the `attempt`th failure; false when cancelled.
    private func backoff(_ attempt: Int) async -> Bool {
        let base = configuration.initialReconnectDelay * (1 << min(attempt - 1, 16))
        let capped = min(base, configuration.maxReconnectDelay)
        let delay = capped * Double.random(in: 0.5...1.0)
        return (try? await Task.sleep(for: delay)) != nil
    }

    /// One connection: open, resubscribe, read until it ends. Returns why it ended and
    /// whether it got as far as connected.
    /// A TLS failure ends a first connection (retrying cannot make a certificate trusted);
    /// after the client has been connected it is retried like any failure, since the
    /// server's certificate may be put right while clients wait.
    private func connectOnce(firstConnection: Bool) async -> (Ending, Bool) {
        let (token, index) = state.withLock { ($0.token ?? "", $0.serverIndex) }
        let server = configuration.serverURLs[index % configuration.serverURLs.count]
        let url = URL(string: configuration.webSocketURL(for: server)) ?? server
        let opened: WebSocketTransport.Opened
        do {
            opened = try await WebSocketTransport.open(
                url: url,
                headers: [("Authorization", "Bearer \(token)")],
                maxFrameSize: configuration.maxInboundFrameBytes,
                timeout: configuration.connectTimeout,
                tls: WebSocketTransport.isSecure(url) ? try tlsContext() : nil)
        } catch {
            logger.debug("connection failed: \(error)")
            if state.withLock({ $0.stopRequested }) { return (.stop(nil), false) }
            if let failure = error as? WebSocketTransport.Failure, failure.tls {
                logger.warning("\(failure)")
                if firstConnection { return (.stop(GreenroomError(.tlsFailure, failure.description)), false) }
            }
            return (.retry, false)
        }
        switch opened {
        case .refused(let status, let refusal):
            // The server refuses before the upgrade with an HTTP status and a JSON error.
            logger.debug("the server refused the connection: \(status) \(refusal.map { "\($0)" } ?? "")")
            switch refusal?.errorCode {
            case .tokenExpired, .invalidToken, .notAuthenticated, .tokenRevoked: return (.refreshToken(refusal!), false)
            case .permissionDenied, .userBanned: return (.stop(refusal), false)
            case .rateLimited:
                // Not before the server says; the backoff follows.
                if let wait = refusal?.retryAfterMs { try? await Task.sleep(for: .milliseconds(wait)) }
                return (.retry, false)
            default: return (.retry, false)
            }
        case .webSocket(let socket):
            let connected = Flag()
            let stopped = state.withLock { state in
                state.socket = socket
                return state.stopRequested
            }
            if stopped { await socket.close(reason: "client disconnected") }
            let resume = Task { await self.resubscribeAll(on: socket, connected: connected) }
            defer { resume.cancel() }
            do {
                let closed = try await socket.run(
                    heartbeat: configuration.heartbeatInterval, maxMessageBytes: configuration.maxInboundFrameBytes
                ) { message in
                    self.handleFrame(Data(message.readableBytesView))
                }
                if state.withLock({ $0.stopRequested }) { return (.stop(nil), connected.value) }
                guard let closed else { return (.retry, connected.value) }
                return (ending(for: closed), connected.value)
            } catch {
                logger.debug("connection failed: \(error)")
                if state.withLock({ $0.stopRequested }) { return (.stop(nil), connected.value) }
                return (.retry, connected.value)
            }
        }
    }

    private func ending(for close: WebSocketConnection.Closed) -> Ending {
        switch CloseCode(rawValue: Int(close.code)) {
        case .tokenExpired: return .refreshToken(GreenroomError(.tokenExpired, close.reason ?? "the token expired"))
        case .forbidden: return .stop(GreenroomError(.permissionDenied, close.reason ?? "the server ended the session"))
        default: return .retry
        }
    }

    /// Resubscribes every stream from its last position, then reports `connected`.
    /// A resubscription that fails without the connection failing (no reply in time) closes
    /// the socket: a connection is either ready or being replaced, never stuck in between.
    private func resubscribeAll(on socket: WebSocketConnection, connected: Flag) async {
        let subscriptions = state.withLock { Array($0.subscriptions.values) }
        var index = 0
        while index < subscriptions.count {
            let subscription = subscriptions[index]
            index += 1
            do {
                let result = try await sendSubscribe(subscription, since: subscription.position, resubscribing: true)
                notifyResubscribed(subscription.stream, recovered: result.recovered)
            } catch let error as GreenroomError where error.is(.rateLimited) {
                // Over the user's budget of subscriptions: wait as the server says, then
                // the same subscription again.
                let wait = Duration.milliseconds(max(error.retryAfterMs ?? 1_000, 1))
                guard (try? await Task.sleep(for: wait)) != nil else { return }
                index -= 1
            } catch let error as GreenroomError where !error.isTransient {
                // Refused for good (the user lost the right to read it, or it is gone).
                state.withLock { _ = $0.subscriptions.removeValue(forKey: subscription.stream) }
                subscription.finish()
            } catch {
                // The connection broke, or stopped answering: the next one resubscribes.
                if !Task.isCancelled { await socket.close(code: .goingAway, reason: "resubscription failed: \(error)") }
                return
            }
        }
        if Task.isCancelled { return }
        connected.set()
        setPhase(.connected)
        resumeReadyWaiters()
    }

    /// Fails every command in flight: the connection they were sent on is gone.
    func connectionLost() {
        let pending = state.withLock { state -> [PendingCommand] in
            state.socket = nil
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for command in pending {
            command.continuation.resume(throwing: GreenroomError(.connectionLost, "the connection was lost before the reply; the outcome is unknown"))
        }
    }

    /// Routes one frame from the server: a reply to its command, an event or a signal to its
    /// subscription.
    func handleFrame(_ data: Data) {
        let frame: ServerFrame
        do {
            frame = try ServerFrame.parse(data)
        } catch {
            logger.warning("unreadable frame from the server: \(error)")
            return
        }
        if let event = frame.event {
            let subscription = state.withLock { $0.subscriptions[event.stream] }
            subscription?.receive(event)
            return
        }
        if let signal = frame.signal {
            let subscription = state.withLock { $0.subscriptions[signal.stream] }
            subscription?.receive(signal)
            return
        }
        guard let re = frame.re else { return }
        guard let command = state.withLock({ $0.pending.removeValue(forKey: re) }) else {
            if let error = frame.error { logger.warning("server error: \(error)") }
            return
        }
        if let error = frame.error {
            command.continuation.resume(throwing: error)
        } else {
            let result = frame.result ?? .nil
            command.onReply?(result)
            command.continuation.resume(returning: result)
        }
    }
}

/// A flag set once, read from any thread (whether an attempt reached `connected`, timed out, …).
final class Flag: Sendable {
    private let flag = Locked(false)
    func set() { flag.withLock { $0 = true } }
    var value: Bool { flag.withLock { $0 } }
}
