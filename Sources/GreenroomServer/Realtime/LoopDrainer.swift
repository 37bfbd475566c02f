import DequeModule
import GreenroomProtocol
import NIOCore

/// Hands stored events to the subscribers of one event loop and writes them out, a few
/// connections a loop task, in the order the events came.
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
final class LoopDrainer: Sendable {
    /// Connections drained in one loop task.
    static let chunk = 32

    /// Stored events for this loop's subscribers of their streams, in offset order per stream.
    struct HandOff: Sendable {
        /// Each event with its frame (encoded once for every loop).
        var events: [(event: StreamEvent, frame: ByteBuffer)]
        /// Whose subscribers they go to.
        let hub: EventHub
        let metrics: ServerMetrics
        /// Told once this loop has queued them; `nil` when nobody waits.
        let countdown: HandOffCountdown?
    }

    private struct State {
        var handOffs = Deque<HandOff>()
        var waiting = Deque<ClientConnection>()
        /// A task that takes the next hand-offs and chunk is queued on the loop (or running).
        var scheduled = false
    }

    /// The event loop whose connections this drainer writes.
    let loop: any EventLoop
    private let state = Locked(State())

    private init(loop: any EventLoop) {
        self.loop = loop
    }

    /// The drainer of every event loop that has had a connection. Each holds its loop, so a
    /// loop's identifier is never reused for another while its drainer is here; there is one a
    /// loop of the (process-wide) event loop group, never removed.
    private static let drainers = Locked<[ObjectIdentifier: LoopDrainer]>([:])

    /// The drainer of `loop`.
    static func of(_ loop: any EventLoop) -> LoopDrainer {
        drainers.withLock { drainers in
            if let drainer = drainers[ObjectIdentifier(loop)] { return drainer }
            let drainer = LoopDrainer(loop: loop)
            drainers[ObjectIdentifier(loop)] = drainer
            return drainer
        }
    }

    /// Queues stored events for this loop's subscribers, after those queued before.
    func handOff(_ handOff: HandOff) {
        schedule { $0.handOffs.append(handOff) }
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
            for (event, frame) in handOff.events {
                toDrain += handOff.hub.deliver(event, frame: frame, on: self, metrics: handOff.metrics)
            }
            state.withLock { $0.waiting.append(contentsOf: toDrain) }
            handOff.countdown?.signal()
        }
        let connections = state.withLock { state -> [ClientConnection] in
            let count = min(Self.chunk, state.waiting.count)
            defer { state.waiting.removeFirst(count) }
            return Array(state.waiting.prefix(count))
        }
        for connection in connections { connection.drainOnLoop() }
        let more = state.withLock { state -> Bool in
            if state.waiting.isEmpty && state.handOffs.isEmpty {
                state.scheduled = false
                return false
            }
            return true
        }
        if more { loop.execute { self.drainChunk() } }
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
