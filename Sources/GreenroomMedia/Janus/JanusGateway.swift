import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle
import Synchronization

/// A refusal from Janus (its own error or its VideoRoom plugin's), with Janus's code.
package struct JanusError: Error, CustomStringConvertible {
    package let code: Int
    package let reason: String

    package var description: String { "Janus error \(code): \(reason)" }

    /// VideoRoom: no such room (e.g. Janus restarted since it was made).
    package static let noSuchRoom = 426
    /// VideoRoom: the room exists already.
    package static let roomExists = 427
}

/// Greenroom's one connection to the Janus WebSocket API (subprotocol `janus-protocol`) and
/// the one Janus session on it through which this node attaches every handle.
///
/// Requests carry a transaction id that Janus's answer echoes; plugin requests that Janus
/// answers later (`join`, `configure`, `start`, …) are answered with `ack` first and then an
/// `event` with the same transaction, which is what ``send(_:handle:acceptAck:)`` returns.
/// Events without a pending transaction (`webrtcup`, `media`, `hangup`, `detached`, plugin
/// notifications) go to the handler registered for their handle. While disconnected every
/// request fails with `unavailable`; the gateway reconnects every second, creates a new
/// session and tells its listener that everything of the old one is gone.
package final class JanusGateway: Service, Sendable {
    package let url: String
    private let connector: any JanusConnector
    private let logger: Logger

    private struct Pending {
        let continuation: CheckedContinuation<RawJSON, any Error>
        let acceptAck: Bool
    }

    private struct State {
        var outbound: AsyncStream<String>.Continuation?
        var session: UInt64?
        var pending: [String: Pending] = [:]
        var handlers: [UInt64: @Sendable (RawJSON) -> Void] = [:]
        var onSessionLost: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let transactions = Atomic<UInt64>(0)

    /// A gateway to the Janus at `url`, reached through `connector`.
    package init(url: String, connector: any JanusConnector, logger: Logger) {
        self.url = url
        self.connector = connector
        self.logger = logger
    }

    /// Whether a Janus session is open now.
    package var isReady: Bool { state.withLock { $0.session != nil } }

    /// Sets what runs when the session is lost (Janus died or the connection dropped): every
    /// handle and room of the old session is gone.
    package func onSessionLost(_ body: @escaping @Sendable () -> Void) {
        state.withLock { $0.onSessionLost = body }
    }

    // MARK: Running

    /// Connects, and reconnects after a second whenever the connection ends, until shutdown.
    package func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                await connectOnce()
                try? await Task.sleep(for: .seconds(1))
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.outbound?.finish() }
        }
        state.withLock { $0.outbound?.finish() }
    }

    private func connectOnce() async {
        do {
            try await connector.connect(url: url, logger: logger) { socket in
                let (messages, continuation) = AsyncStream.makeStream(of: String.self)
                self.state.withLock { $0.outbound = continuation }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in messages { try await socket.send(text) }
                        try await socket.close()
                    }
                    group.addTask { await self.openSession() }
                    try await socket.receive { text in self.receive(text) }
                    continuation.finish()
                    group.cancelAll()
                }
            }
        } catch {
            logger.debug("Janus at \(url) is not reachable: \(error)")
        }
        sessionEnded()
    }

    /// Creates the session and keeps it alive (Janus drops a session silent for 60 s).
    private func openSession() async {
        do {
            let created = try await send(["janus": "create"], session: false)
            guard let id = created["data"]?["id"]?.numberValue.flatMap(UInt64.init(exactly:)) else {
                logger.error("Janus answered create without a session id")
                state.withLock { $0.outbound?.finish() }
                return
            }
            state.withLock { $0.session = id }
            logger.info("connected to Janus at \(url) (session \(id))")
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(20))
                _ = try await send(["janus": "keepalive"], acceptAck: true)
            }
        } catch is CancellationError {
        } catch {
            logger.warning("Janus session failed: \(error)")
            state.withLock { $0.outbound?.finish() }
        }
    }

    private func sessionEnded() {
        let (pending, hadSession, listener) = state.withLock { state in
            defer {
                state.pending = [:]
                state.handlers = [:]
                state.session = nil
                state.outbound = nil
            }
            return (Array(state.pending.values), state.session != nil, state.onSessionLost)
        }
        for item in pending { item.continuation.resume(throwing: Self.unavailable) }
        if hadSession {
            logger.warning("lost the Janus session at \(url); media is unavailable until it is back")
            listener?()
        }
    }

    package static let unavailable = GreenroomError(
        .unavailable, "media is unavailable: the media server (Janus) is not reachable; try again shortly")

    // MARK: Requests

    /// Sends a Janus API request (its `transaction`, `session_id` and `handle_id` added) and
    /// returns Janus's answer: `success`, or the `event` that carries an asynchronous plugin
    /// answer; `ack` too when `acceptAck` (trickle, keepalive, detach). Throws
    /// ``JanusError`` when Janus refuses, `unavailable` when it is not connected or does not
    /// answer within 10 seconds.
    package func send(_ request: [String: RawJSON], handle: UInt64? = nil, session: Bool = true, acceptAck: Bool = false) async throws -> RawJSON {
        let transaction = "g\(transactions.add(1, ordering: .relaxed).newValue)"
        var message = request
        message["transaction"] = .string(transaction)
        if let handle { message["handle_id"] = .number(Double(handle)) }
        let timer = Task { await self.expire(transaction) }
        defer { timer.cancel() }
        let answer = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<RawJSON, any Error>) in
            let text = state.withLock { state -> String? in
                guard let outbound = state.outbound, !session || state.session != nil else { return nil }
                if session, let id = state.session { message["session_id"] = .number(Double(id)) }
                guard let text = try? RawJSON.dictionary(message).jsonString() else { return nil }
                state.pending[transaction] = Pending(continuation: continuation, acceptAck: acceptAck)
                outbound.yield(text)
                return text
            }
            if text == nil { continuation.resume(throwing: Self.unavailable) }
        }
        // Parsed by the receiving task, which took the request out of `pending` under this
        // lock before resuming: ordered for ThreadSanitizer too (see `Locked.synchronize`).
        state.synchronize()
        if answer["janus"]?.stringValue == "error" {
            throw JanusError(code: Int(answer["error"]?["code"]?.numberValue ?? 0), reason: answer["error"]?["reason"]?.stringValue ?? "unknown")
        }
        return answer
    }

    /// Fails a request Janus has not answered in time.
    private func expire(after duration: Duration = .seconds(10), _ transaction: String) async {
        guard (try? await Task.sleep(for: duration)) != nil else { return }
        let pending = state.withLock { $0.pending.removeValue(forKey: transaction) }
        pending?.continuation.resume(throwing: GreenroomError(.unavailable, "the media server did not answer in time"))
    }

    /// Sends a VideoRoom request on `handle` and returns the plugin's data and JSEP. Throws
    /// ``JanusError`` with the plugin's code when the plugin refuses.
    package func plugin(_ handle: UInt64, _ body: [String: RawJSON], jsep: SessionDescription? = nil) async throws -> (data: RawJSON, jsep: SessionDescription?) {
        var request: [String: RawJSON] = ["janus": "message", "body": .dictionary(body)]
        if let jsep { request["jsep"] = ["type": .string(jsep.type), "sdp": .string(jsep.sdp)] }
        let answer = try await send(request, handle: handle)
        let data = answer["plugindata"]?["data"] ?? .nil
        if let code = data["error_code"]?.numberValue {
            throw JanusError(code: Int(code), reason: data["error"]?.stringValue ?? "refused")
        }
        let answerJSEP = answer["jsep"].flatMap { jsep -> SessionDescription? in
            guard let type = jsep["type"]?.stringValue, let sdp = jsep["sdp"]?.stringValue else { return nil }
            return SessionDescription(type: type, sdp: sdp)
        }
        return (data, answerJSEP)
    }

    /// Attaches a VideoRoom handle; `events` gets what Janus sends it outside answers.
    package func attach(events: @escaping @Sendable (RawJSON) -> Void) async throws -> UInt64 {
        let answer = try await send(["janus": "attach", "plugin": "janus.plugin.videoroom"])
        guard let id = answer["data"]?["id"]?.numberValue.flatMap(UInt64.init(exactly:)) else {
            throw GreenroomError(.internalError, "Janus answered attach without a handle id")
        }
        state.withLock { $0.handlers[id] = events }
        return id
    }

    /// Detaches a handle (leaving its room); never throws: a handle whose session is gone
    /// is gone already.
    package func detach(_ handle: UInt64) async {
        state.withLock { _ = $0.handlers.removeValue(forKey: handle) }
        _ = try? await send(["janus": "detach"], handle: handle, acceptAck: true)
    }

    /// Hands one of the client's ICE candidates (or the end of them, `nil`) to `handle`.
    package func trickle(_ handle: UInt64, candidate: [String: RawJSON]?) async throws {
        var request: [String: RawJSON] = ["janus": "trickle"]
        request["candidate"] = candidate.map(RawJSON.dictionary) ?? ["completed": true]
        _ = try await send(request, handle: handle, acceptAck: true)
    }

    // MARK: Receiving

    private func receive(_ text: String) {
        guard let message = try? RawJSON(json: text), let kind = message["janus"]?.stringValue else {
            logger.warning("Janus sent something that is not a Janus message")
            return
        }
        if let transaction = message["transaction"]?.stringValue {
            let pending = state.withLock { state -> Pending? in
                guard let pending = state.pending[transaction], kind != "ack" || pending.acceptAck else { return nil }
                return state.pending.removeValue(forKey: transaction)
            }
            if let pending {
                pending.continuation.resume(returning: message)
                return
            }
            if kind == "ack" { return }
        }
        if kind == "timeout" {
            logger.warning("Janus timed the session out")
            state.withLock { $0.outbound?.finish() }
            return
        }
        guard let sender = message["sender"]?.numberValue.flatMap(UInt64.init(exactly:)) else { return }
        let handler = state.withLock { $0.handlers[sender] }
        handler?(message)
    }
}

/// How the gateway reaches Janus's WebSocket API (subprotocol `janus-protocol`): the server
/// gives it its WebSocket client.
package protocol JanusConnector: Sendable {
    /// Connects to `url` and runs `body` with the open socket; the socket closes when `body`
    /// returns. Throws when Janus cannot be reached.
    func connect(url: String, logger: Logger, _ body: @escaping @Sendable (any JanusSocket) async throws -> Void) async throws
}

/// An open WebSocket to Janus, as the gateway uses it.
package protocol JanusSocket: Sendable {
    /// Sends a text message.
    func send(_ text: String) async throws
    /// Calls `body` with each text message received, until the socket closes.
    func receive(_ body: @Sendable (String) -> Void) async throws
    /// Closes the socket.
    func close() async throws
}
