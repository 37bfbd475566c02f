import DequeModule
import GreenroomProtocol
import NIOCore
import NIOWebSocket

/// One client's WebSocket: its identity, its subscriptions and its bounded outbound queue.
///
/// Deliveries from the hub and replies from commands are queued here without awaiting, and
/// drained to the socket on the channel's event loop: one hop per event loop for all the
/// connections an event reaches (through the loop's ``LoopDrainer``, a few connections a
/// loop task), no task wake-up per delivery. While the socket is not writable the frames
/// wait in the queue; a client that lets the queue fill up is disconnected with
/// ``CloseCode/slowConsumer`` and never slows anyone else down. A close is sent by a
/// short-lived task, after what was queued before it.
final class ClientConnection: Sendable {
    enum Subscription {
        /// Replaying from the log; live events wait here until the replay is done.
        case replaying(buffered: [(offset: UInt64, frame: ByteBuffer)])
        /// Live: events after `last` are written as they come.
        case live(last: UInt64)
    }

    struct State {
        var queue = Deque<ByteBuffer>()
        /// The bytes of the frames in `queue`.
        var queuedBytes = 0
        /// The most frames `queue` held at once.
        var peakFrames = 0
        var subscriptions: [String: Subscription] = [:]
        var presence: Set<String> = []
        /// Roster entries this connection holds: stream → keys.
        var roster: [String: Set<String>] = [:]
        /// A drain is scheduled on the event loop (or running); set when the queue gains a
        /// frame, cleared by the drain that finds it empty.
        var drainScheduled = false
        var closeRequest: (code: UInt16, reason: String)?
        var finished = false
    }

    let id: Int
    let identity: Identity
    let channel: any Channel
    /// The handler next to the socket, which queued frames are written through.
    private let wire: NIOLoopBound<WireHandler>
    /// Keeps this connection's subscriptions among its loop's subscribers, and writes its
    /// fanned-out events with theirs.
    let drainer: LoopDrainer
    /// The most frames, and bytes, that may wait in the queue: live events, replies and
    /// replayed events alike.
    private let limit: Int
    private let byteLimit: Int
    private let metrics: ServerMetrics
    private let state = Locked(State())
    /// Its rate budgets and its own token buckets (``RateLimiter``).
    let budget: ConnectionBudget

    init(id: Int, identity: Identity, channel: any Channel, wire: NIOLoopBound<WireHandler>, drainer: LoopDrainer,
         budget: ConnectionBudget, limit: Int, byteLimit: Int = .max, metrics: ServerMetrics) {
        self.id = id
        self.identity = identity
        self.budget = budget
        self.channel = channel
        self.wire = wire
        self.drainer = drainer
        self.limit = limit
        self.byteLimit = byteLimit
        self.metrics = metrics
    }

    /// The most frames the outbound queue held at once.
    var peakQueuedFrames: Int { state.withLock { $0.peakFrames } }

    var subscribedStreams: [String] { state.withLock { Array($0.subscriptions.keys) } }

    // MARK: Queueing

    /// Queues a reply (its JSON text) or other message; counts against the queue limit.
    func send(_ text: ByteBuffer) {
        let frame = WireHandler.textFrame(text.readableBytesView)
        let action = state.withLock { state in enqueue(frame, into: &state) }
        perform(action)
    }

    /// Queues replayed events (frames from ``EventHub/encode(_:)``) as the socket takes
    /// them: each waits until the queue has room for it under the limits, so a replay holds
    /// no more than a live subscriber may. Returns `false`, having queued what fit, when
    /// the connection closes meanwhile (a reader that never reads is closed by
    /// ``WireHandler``'s stall check).
    func sendReplay(_ frames: [ByteBuffer]) async -> Bool {
        var next = 0
        while next < frames.count {
            let (queued, action) = state.withLock { state -> (Int, Action) in
                guard !state.finished, state.closeRequest == nil else { return (-1, .none) }
                var count = 0
                for frame in frames[next...] {
                    let fits = state.queue.isEmpty
                        || (state.queue.count < limit && state.queuedBytes + frame.readableBytes <= byteLimit)
                    guard fits else { break }
                    append(frame, to: &state)
                    count += 1
                }
                return (count, count > 0 ? needsDrain(&state) : .none)
            }
            guard queued >= 0, channel.isActive else { return false }
            perform(action)
            next += queued
            if next < frames.count { try? await Task.sleep(for: .milliseconds(5)) }
        }
        return true
    }

    private func append(_ frame: ByteBuffer, to state: inout State) {
        state.queue.append(frame)
        state.queuedBytes += frame.readableBytes
        state.peakFrames = max(state.peakFrames, state.queue.count)
    }

    /// Delivers a live event of `stream` (its frame, from ``EventHub/encode(_:)``): queued now when the subscription is live,
    /// buffered while it replays, dropped when it was already delivered or not subscribed.
    /// Returns whether the connection needs a drain, which the caller (its loop's
    /// ``drainer``) queues together with the other connections of its loop it delivered to.
    ///
    /// Called for each subscriber of an event, so the stream is looked up once and its entry
    /// changed in place (a replay's buffer is not copied for each event).
    func deliver(stream: String, offset: UInt64, frame: ByteBuffer) -> Bool {
        let action = state.withLock { state -> Action in
            guard let index = state.subscriptions.index(forKey: stream) else { return .none }
            switch state.subscriptions.values[index] {
            case .replaying(var buffered):
                // Live events wait while the replay runs, as many as the queue may hold.
                guard buffered.count < limit else { return slowConsumer(&state) }
                // Take the buffer out of the entry first, so the append does not copy it.
                state.subscriptions.values[index] = .live(last: .max)
                buffered.append((offset, frame))
                state.subscriptions.values[index] = .replaying(buffered: buffered)
                return .none
            case .live(let last):
                guard offset > last else { return .none }
                state.subscriptions.values[index] = .live(last: offset)
                return enqueue(frame, into: &state)
            }
        }
        return drainNeeded(after: action)
    }

    /// Delivers a signal of `stream` (its frame): queued when the subscription is live,
    /// dropped while it replays (a signal is not part of the stream's history) or when not
    /// subscribed. Returns whether the connection needs a drain.
    func deliverSignal(stream: String, frame: ByteBuffer) -> Bool {
        let action = state.withLock { state -> Action in
            guard case .live = state.subscriptions[stream] else { return .none }
            return enqueue(frame, into: &state)
        }
        return drainNeeded(after: action)
    }

    /// Whether a delivery's action leaves the connection needing a drain; a close it asks
    /// for is sent now.
    private func drainNeeded(after action: Action) -> Bool {
        switch action {
        case .drain: return true
        case .none: return false
        case .close: perform(action); return false
        }
    }

    /// What a queue change asks for once the lock is released.
    private enum Action {
        case none
        /// Schedule a drain on the event loop.
        case drain
        /// Send the close frame that was just requested.
        case close
    }

    private func perform(_ action: Action) {
        switch action {
        case .none: break
        case .drain: channel.eventLoop.execute { self.drainOnLoop() }
        case .close: startClose()
        }
    }

    private func enqueue(_ frame: ByteBuffer, into state: inout State) -> Action {
        guard !state.finished, state.closeRequest == nil else { return .none }
        if state.queue.count >= limit || (!state.queue.isEmpty && state.queuedBytes + frame.readableBytes > byteLimit) {
            return slowConsumer(&state)
        }
        append(frame, to: &state)
        return needsDrain(&state)
    }

    /// Drops what waits and closes the connection as a slow consumer (it resumes without loss).
    private func slowConsumer(_ state: inout State) -> Action {
        guard !state.finished, state.closeRequest == nil else { return .none }
        state.queue.removeAll()
        state.queuedBytes = 0
        state.closeRequest = (UInt16(CloseCode.slowConsumer.rawValue), "slow consumer: reconnect and resume")
        metrics.outboundDrop()
        forceCloseSoon()
        return .close
    }

    private func needsDrain(_ state: inout State) -> Action {
        if state.drainScheduled { return .none }
        state.drainScheduled = true
        return .drain
    }

    /// The most bytes one drain step hands to the channel: what a socket that stops taking
    /// writes leaves in the channel's buffer on top of its high-water mark, outside the
    /// queue's limits.
    static let drainStepBytes = 256 * 1024

    /// Several frames of a drain step that come to at most this many bytes are copied into
    /// one buffer and handed to the channel as one write.
    ///
    /// A fan-out that is behind leaves a few events' frames on each connection for its
    /// turn; handed over one by one, each costs the channel's write path (its pipeline and
    /// its list of pending writes) and an entry of the vectored write, which together cost
    /// more than copying a few hundred bytes (BENCHMARKS.md, issue 41). Past this size (a
    /// replay's steps) the frames go as they are: a copy would be the connection's own,
    /// where the frames are shared by every subscriber, for as long as the socket keeps it.
    static let joinedWriteBytes = 16 * 1024

    /// On the event loop: writes queued frames while the socket takes them, flushing each
    /// batch (at most ``drainStepBytes``, at least one frame). When the socket is full the
    /// queue keeps the rest, and the drain goes on when the socket takes writes again
    /// (``socketWritable()``); until then no other drain is scheduled.
    func drainOnLoop() {
        while channel.isWritable {
            let (batch, bytes) = state.withLock { state -> ([ByteBuffer], Int) in
                if state.finished || state.queue.isEmpty {
                    state.drainScheduled = false
                    return ([], 0)
                }
                var frames: [ByteBuffer] = []
                var bytes = 0
                while let frame = state.queue.first, frames.isEmpty || bytes + frame.readableBytes <= Self.drainStepBytes {
                    state.queue.removeFirst()
                    bytes += frame.readableBytes
                    frames.append(frame)
                }
                state.queuedBytes -= bytes
                return (frames, bytes)
            }
            if batch.isEmpty { return }
            let wire = self.wire.value
            if batch.count > 1 && bytes <= Self.joinedWriteBytes {
                var joined = channel.allocator.buffer(capacity: bytes)
                for var frame in batch { joined.writeBuffer(&frame) }
                wire.write(joined)
            } else {
                for frame in batch { wire.write(frame) }
            }
            wire.flush()
        }
        if !channel.isActive {
            state.withLock { $0.drainScheduled = false }
        }
    }

    /// On the event loop, when the socket takes writes again after it was full (told by
    /// ``WireHandler``): the waiting drain goes on.
    func socketWritable() {
        guard state.withLock({ $0.drainScheduled }) else { return }
        drainOnLoop()
    }

    /// A slow reader may never drain what is already in the socket, so the writer could
    /// wait forever for room to write the close frame: close the socket shortly after.
    private func forceCloseSoon() {
        let channel = self.channel
        channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }

    // MARK: Subscriptions

    /// Starts a subscription in the replaying state, and from now on gets the stream's live
    /// events (held until ``goLive(_:after:)``); returns false when already subscribed or
    /// finished.
    ///
    /// The connection's subscriptions and its loop's table of subscribers change together,
    /// under the connection's lock (the drainer never takes a connection's lock while it
    /// holds its own), so a subscription that ends or a connection that finishes meanwhile
    /// leaves nothing behind in the table.
    func beginSubscription(_ stream: String) -> Bool {
        state.withLock { state in
            if state.finished || state.subscriptions[stream] != nil { return false }
            state.subscriptions[stream] = .replaying(buffered: [])
            drainer.add(self, to: stream)
            return true
        }
    }

    /// Ends the replay: queues buffered live events after `last`, then goes live.
    func goLive(_ stream: String, after last: UInt64) {
        // Every action is kept: a drain scheduled for the first frames must still run when a
        // later frame overflows the queue and asks for a close.
        let actions = state.withLock { state -> [Action] in
            guard case .replaying(let buffered) = state.subscriptions[stream] else { return [] }
            var last = last
            var actions: [Action] = []
            for item in buffered where item.offset > last {
                last = item.offset
                actions.append(enqueue(item.frame, into: &state))
            }
            state.subscriptions[stream] = .live(last: last)
            return actions
        }
        actions.forEach(perform)
    }

    /// Ends a subscription: no more of the stream's events come; returns whether there was one.
    @discardableResult
    func endSubscription(_ stream: String) -> Bool {
        state.withLock { state in
            guard state.subscriptions.removeValue(forKey: stream) != nil else { return false }
            drainer.remove(self, from: stream)
            return true
        }
    }

    // MARK: Presence

    /// Notes presence on `stream`, unless the connection is present on `limit` streams
    /// already; false then.
    func addPresence(_ stream: String, limit: Int) -> Bool {
        state.withLock { state in
            guard state.presence.contains(stream) || state.presence.count < limit else { return false }
            state.presence.insert(stream)
            return true
        }
    }
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

    /// Sends a close frame with `code` after what is queued.
    func requestClose(_ code: CloseCode, reason: String) {
        let action = state.withLock { state -> Action in
            guard !state.finished, state.closeRequest == nil else { return .none }
            state.closeRequest = (UInt16(code.rawValue), reason)
            return .close
        }
        perform(action)
    }

    /// Cuts the connection without a close frame, as a failing network would.
    func drop() {
        channel.close(promise: nil)
    }

    /// Marks the connection finished (the client went away): its subscriptions end and
    /// nothing more is written.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.queue.removeAll()
            state.queuedBytes = 0
            for stream in state.subscriptions.keys { drainer.remove(self, from: stream) }
            state.subscriptions.removeAll()
        }
    }

    /// Whether frames queued before the close request are still on their way to the socket.
    private var draining: Bool {
        state.withLock { !$0.finished && ($0.drainScheduled || !$0.queue.isEmpty) }
    }

    /// Whether the server has asked to close (so a close from the client is the answer).
    var closeRequested: Bool { state.withLock { $0.closeRequest != nil } }

    /// A close frame: `code`, then `reason` (cut to fit the 125 bytes a control frame holds).
    static func closeFrame(code: UInt16, reason: String, allocator: ByteBufferAllocator) -> WebSocketFrame {
        var reason = Substring(reason)
        while reason.utf8.count > 123 { reason = reason.dropLast() }
        var data = allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code)
        data.writeString(String(reason))
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }

    /// Lets the frames queued before the close request reach the socket (for a few seconds
    /// at most: a slow consumer's queue was already dropped), then sends the close frame.
    /// A client that does not answer it is cut off five seconds later.
    private func startClose() {
        guard let request = state.withLock({ $0.closeRequest }) else { return }
        let channel = self.channel
        Task {
            let deadline = ContinuousClock.now + .seconds(3)
            while draining, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(5))
            }
            channel.eventLoop.scheduleTask(in: .seconds(5)) { channel.close(promise: nil) }
            channel.writeAndFlush(Self.closeFrame(code: request.code, reason: request.reason, allocator: channel.allocator), promise: nil)
        }
    }
}
