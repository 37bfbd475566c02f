import DequeModule
import GreenroomProtocol
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import Synchronization

/// One client's WebSocket: its identity, its subscriptions and its bounded outbound queue.
///
/// Deliveries from the hub and replies from commands are queued here without awaiting; a
/// writer task drains the queue to the socket. A client that lets the queue fill up is
/// disconnected with ``CloseCode/slowConsumer`` and never slows anyone else down.
final class ClientConnection: Sendable {
    enum Subscription {
        /// Replaying from the log; live events wait here until the replay is done.
        case replaying(buffered: [(offset: UInt64, frame: ByteBuffer)])
        /// Live: events after `last` are written as they come.
        case live(last: UInt64)
    }

    struct State {
        var queue = Deque<ByteBuffer>()
        var subscriptions: [String: Subscription] = [:]
        var presence: Set<String> = []
        /// Roster entries this connection holds: stream → keys.
        var roster: [String: Set<String>] = [:]
        var waiter: CheckedContinuation<Void, Never>?
        var closeRequest: (code: WebSocketErrorCode, reason: String)?
        var finished = false
    }

    let id: Int
    let identity: Identity
    let channel: any Channel
    private let limit: Int
    private let metrics: ServerMetrics
    private let state = Mutex(State())

    init(id: Int, identity: Identity, channel: any Channel, limit: Int, metrics: ServerMetrics) {
        self.id = id
        self.identity = identity
        self.channel = channel
        self.limit = limit
        self.metrics = metrics
    }

    var subscribedStreams: [String] { state.withLock { Array($0.subscriptions.keys) } }

    // MARK: Queueing

    /// Queues a reply or other frame; counts against the queue limit.
    func send(_ frame: ByteBuffer) {
        let waiter = state.withLock { state in enqueue(frame, into: &state) }
        waiter?.resume()
    }

    /// Queues replayed events; they do not count against the limit (the log bounds them).
    func sendReplay(_ frames: [ByteBuffer]) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished, state.closeRequest == nil else { return nil }
            state.queue.append(contentsOf: frames)
            return takeWaiter(&state)
        }
        waiter?.resume()
    }

    /// Delivers a live event of `stream`: written now when the subscription is live,
    /// buffered while it replays, dropped when it was already delivered or not subscribed.
    func deliver(stream: String, offset: UInt64, frame: ByteBuffer) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            switch state.subscriptions[stream] {
            case .none:
                return nil
            case .replaying(var buffered):
                buffered.append((offset, frame))
                state.subscriptions[stream] = .replaying(buffered: buffered)
                return nil
            case .live(let last):
                guard offset > last else { return nil }
                state.subscriptions[stream] = .live(last: offset)
                return enqueue(frame, into: &state)
            }
        }
        waiter?.resume()
    }

    private func enqueue(_ frame: ByteBuffer, into state: inout State) -> CheckedContinuation<Void, Never>? {
        guard !state.finished, state.closeRequest == nil else { return nil }
        if state.queue.count >= limit {
            state.queue.removeAll()
            state.closeRequest = (WebSocketErrorCode(codeNumber: CloseCode.slowConsumer.rawValue), "slow consumer: reconnect and resume")
            metrics.outboundDrop()
            forceCloseSoon()
            return takeWaiter(&state)
        }
        state.queue.append(frame)
        return takeWaiter(&state)
    }

    private func takeWaiter(_ state: inout State) -> CheckedContinuation<Void, Never>? {
        defer { state.waiter = nil }
        return state.waiter
    }

    /// A slow reader may never drain what is already in the socket, so the writer could
    /// wait forever for room to write the close frame: close the socket shortly after.
    private func forceCloseSoon() {
        let channel = self.channel
        channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }

    // MARK: Subscriptions

    /// Starts a subscription in the replaying state; returns false when already subscribed.
    func beginSubscription(_ stream: String) -> Bool {
        state.withLock { state in
            if state.subscriptions[stream] != nil { return false }
            state.subscriptions[stream] = .replaying(buffered: [])
            return true
        }
    }

    /// Ends the replay: queues buffered live events after `last`, then goes live.
    func goLive(_ stream: String, after last: UInt64) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard case .replaying(let buffered) = state.subscriptions[stream] else { return nil }
            var last = last
            var waiter: CheckedContinuation<Void, Never>?
            for item in buffered where item.offset > last {
                last = item.offset
                waiter = enqueue(item.frame, into: &state) ?? waiter
            }
            state.subscriptions[stream] = .live(last: last)
            return waiter ?? takeWaiter(&state)
        }
        waiter?.resume()
    }

    /// Forgets a subscription; returns whether there was one.
    @discardableResult
    func endSubscription(_ stream: String) -> Bool {
        state.withLock { $0.subscriptions.removeValue(forKey: stream) != nil }
    }

    // MARK: Presence

    /// Records presence on `stream`; false when already present.
    func addPresence(_ stream: String) -> Bool { state.withLock { $0.presence.insert(stream).inserted } }
    /// Forgets presence on `stream`; false when not present.
    func removePresence(_ stream: String) -> Bool { state.withLock { $0.presence.remove(stream) != nil } }
    /// The streams this connection is present on.
    var presenceStreams: [String] { state.withLock { Array($0.presence) } }

    /// Notes a roster entry this connection holds.
    func addRoster(stream: String, key: String) { state.withLock { _ = $0.roster[stream, default: []].insert(key) } }
    /// Forgets a roster entry.
    func removeRoster(stream: String, key: String) {
        state.withLock { state in
            state.roster[stream]?.remove(key)
            if state.roster[stream]?.isEmpty == true { state.roster[stream] = nil }
        }
    }
    /// The roster entries this connection holds.
    var rosterEntries: [(stream: String, key: String)] {
        state.withLock { state in state.roster.flatMap { stream, keys in keys.map { (stream, $0) } } }
    }

    // MARK: Closing and writing

    /// Asks the writer to send a close frame with `code` after what is queued.
    func requestClose(_ code: CloseCode, reason: String) {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.finished, state.closeRequest == nil else { return nil }
            state.closeRequest = (WebSocketErrorCode(codeNumber: code.rawValue), reason)
            return takeWaiter(&state)
        }
        waiter?.resume()
    }

    /// Cuts the connection without a close frame, as a failing network would.
    func drop() {
        channel.close(promise: nil)
    }

    /// Marks the connection finished (the client went away); the writer stops.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.finished = true
            state.queue.removeAll()
            state.subscriptions.removeAll()
            return takeWaiter(&state)
        }
        waiter?.resume()
    }

    private enum Next {
        case frames([ByteBuffer])
        case close(WebSocketErrorCode, String)
        case stop
    }

    private func next() async -> Next {
        while true {
            let taken = state.withLock { state -> Next? in
                if state.finished { return .stop }
                if !state.queue.isEmpty {
                    let frames = Array(state.queue)
                    state.queue.removeAll(keepingCapacity: true)
                    return .frames(frames)
                }
                if let close = state.closeRequest { return .close(close.code, close.reason) }
                return nil
            }
            if let taken { return taken }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.finished || !state.queue.isEmpty || state.closeRequest != nil { return true }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// Writes queued frames until a close is requested (returns after sending the close
    /// frame) or the connection finishes.
    func runWriter(_ outbound: WebSocketOutboundWriter) async throws {
        while true {
            switch await next() {
            case .frames(let frames):
                for frame in frames {
                    try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: frame)))
                }
            case .close(let code, let reason):
                // A peer that never answers the close frame is cut off after a while.
                let channel = self.channel
                channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
                try await outbound.close(code, reason: reason)
                return
            case .stop:
                return
            }
        }
    }
}
