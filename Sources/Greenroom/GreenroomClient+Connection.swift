import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Logging
import NIOCore
import NIOWebSocket
import Synchronization
import WSClient

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

    /// Connects, serves the connection, and reconnects until stopped.
    func runConnectionLoop() async {
        var failures = 0
        var everConnected = false
        while !Task.isCancelled, !state.withLock({ $0.stopRequested }) {
            if failures > 0 || everConnected {
                setPhase(everConnected ? .reconnecting(attempt: failures + 1) : .connecting)
            }
            let (ending, connected) = await connectOnce()
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
    private func connectOnce() async -> (Ending, Bool) {
        let (token, index) = state.withLock { ($0.token ?? "", $0.serverIndex) }
        let server = configuration.serverURLs[index % configuration.serverURLs.count]
        var config = WebSocketClientConfiguration(
            maxFrameSize: configuration.maxInboundFrameBytes,
            autoPing: .enabled(timePeriod: configuration.heartbeatInterval))
        config.additionalHeaders[.authorization] = "Bearer \(token)"
        let connected = ConnectedFlag()
        do {
            let close = try await WebSocketClient.connect(
                url: configuration.webSocketURL(for: server), configuration: config, logger: logger
            ) { inbound, outbound, _ in
                self.state.withLock { $0.outbound = outbound }
                let resume = Task { await self.resubscribeAll(connected: connected) }
                defer { resume.cancel() }
                for try await message in inbound.messages(maxSize: self.configuration.maxInboundFrameBytes) {
                    switch message {
                    case .text(let text): self.handleFrame(Data(text.utf8))
                    case .binary(let buffer): self.handleFrame(Data(buffer.readableBytesView))
                    }
                }
            }
            if state.withLock({ $0.stopRequested }) { return (.stop(nil), connected.value) }
            guard let close else { return (.retry, connected.value) }
            return (ending(for: close), connected.value)
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            // The server refuses before the upgrade with an HTTP status and a JSON error;
            // the WebSocket client does not expose it, so ask the same URL over plain HTTP.
            let refusal = await probeRefusal(token: token, server: server)
            switch refusal?.errorCode {
            case .tokenExpired, .invalidToken, .notAuthenticated: return (.refreshToken(refusal!), false)
            case .permissionDenied: return (.stop(refusal), false)
            default: return (.retry, false)
            }
        } catch {
            logger.debug("connection failed: \(error)")
            if state.withLock({ $0.stopRequested }) { return (.stop(nil), connected.value) }
            return (.retry, connected.value)
        }
    }

    private func ending(for close: WebSocketCloseFrame) -> Ending {
        let code = Int(UInt16(webSocketErrorCode: close.closeCode))
        switch CloseCode(rawValue: code) {
        case .tokenExpired: return .refreshToken(GreenroomError(.tokenExpired, close.reason ?? "the token expired"))
        case .forbidden: return .stop(GreenroomError(.permissionDenied, close.reason ?? "the server ended the session"))
        default: return .retry
        }
    }

    /// Asks `GET /v1/connect` over HTTP why the upgrade was refused.
    func probeRefusal(token: String, server: URL) async -> GreenroomError? {
        var request = URLRequest(url: configuration.httpURL("/v1/connect", on: server))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 10
        guard let (data, _) = try? await HTTPTransport.data(for: request) else { return nil }
        struct Body: Decodable { var error: GreenroomError }
        return try? WireCoding.decoder.decode(Body.self, from: data).error
    }

    /// Resubscribes every stream from its last position, then reports `connected`.
    private func resubscribeAll(connected: ConnectedFlag) async {
        let subscriptions = state.withLock { Array($0.subscriptions.values) }
        for subscription in subscriptions {
            do {
                let result = try await sendSubscribe(subscription, since: subscription.position)
                subscription.resubscribed(recovered: result.recovered)
                notifyResubscribed(subscription.stream, recovered: result.recovered)
            } catch let error as GreenroomError where !error.isTransient {
                // Refused for good (the user lost the right to read it, or it is gone).
                state.withLock { _ = $0.subscriptions.removeValue(forKey: subscription.stream) }
                subscription.finish()
            } catch {
                return  // the connection broke again; the next one resubscribes
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
            state.outbound = nil
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for command in pending {
            command.continuation.resume(throwing: GreenroomError(.connectionLost, "the connection was lost before the reply; the outcome is unknown"))
        }
    }

    /// Routes one frame from the server: a reply to its command, an event to its subscription.
    func handleFrame(_ data: Data) {
        let frame: ServerFrame
        do {
            frame = try WireCoding.decoder.decode(ServerFrame.self, from: data)
        } catch {
            logger.warning("unreadable frame from the server: \(error)")
            return
        }
        if let event = frame.event {
            let subscription = state.withLock { $0.subscriptions[event.stream] }
            subscription?.receive(event)
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

/// Whether a connection attempt reached `connected`.
final class ConnectedFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var value: Bool { flag.withLock { $0 } }
}
