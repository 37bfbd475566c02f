import DequeModule
import GreenroomProtocol
import NIOCore

/// The subscribers of one event loop, and the writing of the events they get: it keeps
/// which of its loop's connections follow which stream, queues each stored event it is
/// handed on them, and writes them out a few connections a loop task, in the order the
/// events came. Its node's ``EventHub`` makes one per loop and hands it events; it knows
/// nothing of the hub.
///
/// **Handing off.** The node's writer does not touch subscribers: it gives each loop that
/// has subscribers of a batch's streams the batch's events (``handOff(_:)``), and each loop
/// queues them on its own connections, both loops at once. The batch is acknowledged once
/// every loop has (``HandOffCountdown``), so an event still reaches its subscribers' queues
/// before the reply to whoever stored it, as on one thread, while the writer goes on to the
/// next batch at once instead of waiting for a large room's hand-off (BENCHMARKS.md).
///
/// **Writing.** One event reaches hundreds or thousands of connections on a loop, and
/// writing it costs microseconds a connection (mostly the kernel's loopback TCP). Written
/// in one task, a large fan-out would hold its loop for milliseconds, and NIO runs what was
/// queued behind it (the response to a REST publish, a command's reply) only after it. The
/// drainer keeps the connections waiting for a fan-out drain in one queue per loop and
/// takes ``chunk`` of them a task, so whatever else the loop has to do waits for one chunk,
/// not for a whole fan-out (`bench fanout` from REST publishers shows it; BENCHMARKS.md).
///
/// One queue for the loop, not a chain of chunk tasks per event: two events' chains would
/// take turns on the loop, and the older event would be written out as late as the newer
/// one; here the connections of an older event are always written first.
///
/// **Yielding to the sockets.** A NIO event loop runs its ready tasks until none is left
/// before it polls its sockets again. Chunks queued with `execute` would therefore keep a
/// fan-out's whole backlog ahead of every read on the loop: under a sustained fan-out the
/// loop polls only when it has caught up, and a REST publish's request, a command or a
/// ping waits that long to be read. The next chunk is instead a callback due
/// ``yieldDelay`` later, which ends the loop's tick: the loop polls its sockets (without
/// blocking when the callback is due by then) and runs what they brought before the chunk.
/// The frames that pile up on a connection meanwhile go out in one vectored write. At 1,000
/// subscribers × 400 events/s this carries 255,000–287,000 deliveries a second at 3.5–3.9 µs
/// of CPU each, where chunks queued with `execute` carried 152,000–168,000 at 6.1–6.8 µs
/// (BENCHMARKS.md, issue 41).
///
/// **Behind, it waits longer.** Most of a delivery's cost is the write (the kernel's
/// loopback TCP and the wake-up of the reader), whatever number of frames it carries. When
/// a new batch arrives while connections still wait for an older one, the loop is behind
/// the events' rate, and the next chunks wait longer (``behindDelay(waiting:)``): each
/// connection's turn comes a little later, with more frames for its one write, and the CPU
/// a delivery takes falls as the rate rises. The wait is set again whenever a batch's
/// connections join the queue, from how many then wait, so that a pass over them all is
/// about ``behindPass`` longer, and at most ``longestBehindDelay`` a chunk: a few hundred
/// connections get the longest wait, a room of thousands a short one, whose every chunk
/// would otherwise add to the last connection's wait, and a few dozen no more than
/// ``behindWaitPerConnection`` for each (their pass is short: holding it long would add
/// latency for little). Caught up, a fan-out's chunks follow each other at ``yieldDelay``,
/// so a large room is not delayed for nothing. At 1,000 subscribers and 100–400 events a
/// second, a pass 16 ms longer (with each turn's frames in one write,
/// ``ClientConnection/joinedWriteBytes``) spends 10–27% less CPU a delivery than one 8 ms
/// longer, for 3–4 ms more at the median (BENCHMARKS.md, issue 41).
final class LoopDrainer: Sendable, NIOScheduledCallbackHandler {
    /// Connections drained in one loop task.
    static let chunk = 32
    /// How long after a chunk the next one is due: long enough that the loop finds it not
    /// yet due when it looks for ready tasks, just after this chunk, and so polls its
    /// sockets first; short enough to cost nothing measurable when no socket has anything.
    static let yieldDelay = TimeAmount.microseconds(5)
    /// How much longer, in µs, a pass over the connections waiting may take while the loop
    /// is behind (a batch came while connections waited for an older one).
    static let behindPass: Int64 = 16_000
    /// The most a chunk waits while behind, in µs, for each connection waiting: a loop with
    /// few connections, whose pass is short anyway, is not held long for a few writes.
    static let behindWaitPerConnection: Int64 = 10
    /// The longest wait between two chunks, in µs, while the loop is behind.
    static let longestBehindDelay: Int64 = 1_000

    /// The wait between two chunks while behind with `waiting` connections queued: the
    /// pass over them about ``behindPass`` longer, at most ``behindWaitPerConnection`` for
    /// each connection waiting, and between ``yieldDelay`` and ``longestBehindDelay``.
    static func behindDelay(waiting: Int) -> TimeAmount {
        let waiting = Int64(min(max(waiting, 1), 1 << 40))
        let chunks = (waiting + Int64(chunk) - 1) / Int64(chunk)
        let wait = min(behindPass / chunks, behindWaitPerConnection * waiting, longestBehindDelay)
        return .microseconds(max(yieldDelay.nanoseconds / 1_000, wait))
    }

    /// Stored events for this loop's subscribers of their streams, in offset order per stream.
    struct HandOff: Sendable {
        /// Each event with its frame (encoded once for every loop), and its delivery span
        /// when it is traced.
        var events: [(event: StreamEvent, frame: ByteBuffer, span: DeliverySpan?)]
        let metrics: ServerMetrics
        /// Told once this loop has queued them; `nil` when nobody waits.
        let countdown: HandOffCountdown?
    }

    private struct State {
        /// Stream → this loop's connections that follow it.
        var subscribers: [String: [ObjectIdentifier: ClientConnection]] = [:]
        var handOffs = Deque<HandOff>()
        /// Signals for this loop's subscribers, with their frames.
        var signals = Deque<(stream: String, frame: ByteBuffer, metrics: ServerMetrics)>()
        var waiting = Deque<ClientConnection>()
        /// A task that takes the next hand-offs and chunk is queued on the loop (or running).
        var scheduled = false
        /// A batch came while connections still waited for an older one; cleared once none waits.
        var behind = false
        /// The wait between chunks while behind, set from the connections waiting whenever
        /// a batch's join them.
        var behindDelay = TimeAmount.microseconds(LoopDrainer.longestBehindDelay)
    }

    /// The event loop whose connections this drainer writes.
    let loop: any EventLoop
    private let state = Locked(State())

    init(loop: any EventLoop) {
        self.loop = loop
    }

    // MARK: Subscribers

    /// Adds `connection` (of this loop) to the subscribers of `stream`.
    func add(_ connection: ClientConnection, to stream: String) {
        state.withLock { $0.subscribers[stream, default: [:]][ObjectIdentifier(connection)] = connection }
    }

    /// Removes `connection` from the subscribers of `stream`, if it was one.
    func remove(_ connection: ClientConnection, from stream: String) {
        state.withLock { state in
            guard var connections = state.subscribers.removeValue(forKey: stream) else { return }
            connections[ObjectIdentifier(connection)] = nil
            if !connections.isEmpty { state.subscribers[stream] = connections }
        }
    }

    /// This loop's subscribers of `stream`.
    func subscriberCount(_ stream: String) -> Int {
        state.withLock { $0.subscribers[stream]?.count ?? 0 }
    }

    /// The indices of the events in `events` whose streams have subscribers on this loop.
    func followed(_ events: [StreamEvent]) -> [Int] {
        state.withLock { state in
            events.indices.filter { state.subscribers[events[$0].stream] != nil }
        }
    }

    // MARK: Delivering and writing

    /// Queues stored events for this loop's subscribers, after those queued before.
    func handOff(_ handOff: HandOff) {
        schedule { state in
            state.handOffs.append(handOff)
            if !state.waiting.isEmpty { state.behind = true }
        }
    }

    /// Queues a signal's frame for this loop's live subscribers of `stream`.
    func signal(_ stream: String, frame: ByteBuffer, metrics: ServerMetrics) {
        schedule { $0.signals.append((stream, frame, metrics)) }
    }

    private func schedule(_ change: (inout State) -> Void) {
        let schedule = state.withLock { state -> Bool in
            change(&state)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { loop.execute { self.drainChunk() } }
    }

    /// On the loop: queues the events handed over on their subscribers (which writes
    /// nothing yet), drains the next ``chunk`` connections, then queues another task for the
    /// rest, behind what the loop was given meanwhile.
    private func drainChunk() {
        while let handOff = state.withLock({ $0.handOffs.popFirst() }) {
            var toDrain: [ClientConnection] = []
            for (event, frame, span) in handOff.events {
                let (connections, delivered) = deliver(event, frame: frame, metrics: handOff.metrics)
                toDrain += connections
                span?.loopDone(delivered: delivered)
            }
            state.withLock { state in
                state.waiting.append(contentsOf: toDrain)
                if state.behind { state.behindDelay = Self.behindDelay(waiting: state.waiting.count) }
            }
            handOff.countdown?.signal()
        }
        while let signal = state.withLock({ $0.signals.popFirst() }) {
            let subscribers = state.withLock { state in state.subscribers[signal.stream].map { Array($0.values) } ?? [] }
            var toDrain: [ClientConnection] = []
            for connection in subscribers where connection.deliverSignal(stream: signal.stream, frame: signal.frame) {
                toDrain.append(connection)
            }
            signal.metrics.eventsDelivered(subscribers.count)
            state.withLock { $0.waiting.append(contentsOf: toDrain) }
        }
        let connections = state.withLock { state -> [ClientConnection] in
            let count = min(Self.chunk, state.waiting.count)
            defer { state.waiting.removeFirst(count) }
            return Array(state.waiting.prefix(count))
        }
        for connection in connections { connection.drainOnLoop() }
        let next = state.withLock { state -> TimeAmount? in
            if state.waiting.isEmpty { state.behind = false }
            if state.waiting.isEmpty && state.handOffs.isEmpty && state.signals.isEmpty {
                state.scheduled = false
                return nil
            }
            return state.behind ? state.behindDelay : Self.yieldDelay
        }
        if let next { drainNextChunk(in: next) }
    }

    /// Queues the next chunk `delay` from now, behind the loop's next poll of its sockets.
    private func drainNextChunk(in delay: TimeAmount) {
        do {
            try loop.scheduleCallback(in: delay, handler: self)
        } catch {
            // Only a loop that is shutting down refuses a callback; `execute` then reports
            // that as NIO does for any task.
            loop.execute { self.drainChunk() }
        }
    }

    /// The next chunk, due after the loop polled its sockets.
    func handleScheduledCallback(eventLoop: some EventLoop) {
        drainChunk()
    }

    /// On the loop: queues `event` on its stream's subscribers here (of its audience, when
    /// it names one), then ends the subscriptions of those it revokes.
    /// - Returns: the connections that need a drain, and how many it was queued on.
    private func deliver(_ event: StreamEvent, frame: ByteBuffer, metrics: ServerMetrics) -> (toDrain: [ClientConnection], delivered: Int) {
        let connections = state.withLock { state in state.subscribers[event.stream].map { Array($0.values) } ?? [] }
        var toDrain: [ClientConnection] = []
        var revoked: [ClientConnection] = []
        var delivered = 0
        for connection in connections where event.isVisible(to: connection.identity.userId) {
            delivered += 1
            if connection.deliver(stream: event.stream, offset: event.offset, frame: frame) { toDrain.append(connection) }
            if event.revokes?.applies(to: connection.identity.userId) == true { revoked.append(connection) }
        }
        metrics.eventsDelivered(delivered)
        if delivered > 0 { metrics.eventQueued(committedAt: event.at) }
        for connection in revoked { connection.endSubscription(event.stream) }
        return (toDrain, delivered)
    }
}

/// Calls its action once every loop given a batch's events has queued them.
final class HandOffCountdown: Sendable {
    private let remaining: Locked<Int>
    private let then: @Sendable () -> Void

    init(loops: Int, then: @escaping @Sendable () -> Void) {
        remaining = Locked(loops)
        self.then = then
    }

    /// One loop has queued its part.
    func signal() {
        let done = remaining.withLock { remaining -> Bool in
            remaining -= 1
            return remaining == 0
        }
        if done { then() }
    }
}
