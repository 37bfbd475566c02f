import DequeModule
import GreenroomProtocol
import NIOCore

/// Writes fanned-out events to the connections of one event loop, a few connections a loop
/// task, in the order the events came.
///
/// One event reaches hundreds or thousands of connections on a loop, and writing it costs
/// ~5–9 µs a connection here (mostly the kernel's loopback TCP). Written in one task, a
/// fan-out to 500 connections held its loop for 4–6 ms, and NIO runs what was queued behind
/// it (the response to a REST publish, a command's reply) only after it: under 200 events a
/// second, a REST publish waited 3–4 ms for each such task on its way out.
/// The drainer keeps the connections waiting for a fan-out drain in one queue per loop and
/// takes ``chunk`` of them a task, so whatever else the loop has to do waits for one chunk
/// (~0.2–0.4 ms), not for a whole fan-out. `bench fanout --subscribers 1000 --rate 200`
/// from 4 REST publishers: a publish's round trip 17.5–18 ms → 12–13.5 ms (BENCHMARKS.md).
///
/// One queue for the loop, not a chain of chunk tasks per event: two events' chains would
/// take turns on the loop, and the older event would be written out as late as the newer
/// one; here the connections of an older event are always written first. (Measured, the
/// two did alike in a 10,000-subscriber room, whose loops are saturated either way.)
final class LoopDrainer: Sendable {
    /// Connections drained in one loop task.
    static let chunk = 32

    private struct State {
        var waiting = Deque<ClientConnection>()
        /// A task that takes the next chunk is queued on the loop (or running).
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

    /// Queues connections of this loop for a drain (each has just been marked as having one
    /// scheduled), after those already waiting.
    func add(_ connections: [ClientConnection]) {
        guard !connections.isEmpty else { return }
        let schedule = state.withLock { state -> Bool in
            state.waiting.append(contentsOf: connections)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if schedule { loop.execute { self.drainChunk() } }
    }

    /// On the loop: drains the next ``chunk`` connections, then queues another task for the
    /// rest, behind what the loop was given meanwhile.
    private func drainChunk() {
        let connections = state.withLock { state -> [ClientConnection] in
            let count = min(Self.chunk, state.waiting.count)
            defer { state.waiting.removeFirst(count) }
            return Array(state.waiting.prefix(count))
        }
        for connection in connections { connection.drainOnLoop() }
        let more = state.withLock { state -> Bool in
            if state.waiting.isEmpty {
                state.scheduled = false
                return false
            }
            return true
        }
        if more { loop.execute { self.drainChunk() } }
    }
}
