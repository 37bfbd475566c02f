import DequeModule
import GreenroomProtocol
import NIOCore
import Tracing

/// One connection's received commands, run in the order they came by a task that exists
/// only while there are commands to run: an idle connection has no task at all.
///
/// The order is ``CommandPipeline``'s: one command after another, except pipelined sends.
/// When a client sends faster than its commands run, the socket stops being read once
/// ``pauseAt`` commands wait, and is read again when ``resumeAt`` are left. A command
/// refused for its user's rate holds the next one for the refusal's wait, so a client
/// flooding past its budget is slowed to it rather than answered as fast as it sends.
final class CommandQueue: Sendable {
    static let pauseAt = 16
    static let resumeAt = 4

    private struct State {
        /// Each command's text, and when its frame arrived when tracing is on (its span starts then).
        var pending = Deque<(text: ByteBuffer, arrived: DefaultTracerClock.Instant?)>()
        var running = false
        var readsPaused = false
        var closed = false
        /// The commands refused for their user's rate in a row, lately.
        var refusalsInARow = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let connection: ClientConnection
    /// The connection's caller, as every command's handler gets it.
    let caller: Caller
    /// Every WebSocket operation, and what runs them.
    private let commands: CommandRouter
    private let metrics: ServerMetrics
    private let pipeline = CommandPipeline()
    private let state = Locked(State())

    init(connection: ClientConnection, caller: Caller, commands: CommandRouter, metrics: ServerMetrics) {
        self.connection = connection
        self.caller = caller
        self.commands = commands
        self.metrics = metrics
    }

    /// Queues a command's text (on the event loop, as its frame arrives); starts the task
    /// that runs commands when none is running.
    ///
    /// Reads pause as the ``pauseAt``-th command waits. A read of the socket that is under
    /// way still hands on the frames it holds (at most a read's bytes, 4 × 64 KB), so a
    /// connection makes the server hold at most that beyond ``pauseAt`` commands.
    func received(_ text: ByteBuffer) {
        let arrived = commands.tracer == nil ? nil : DefaultTracerClock.now
        let (start, pause, queued) = state.withLock { state -> (Bool, Bool, Bool) in
            guard !state.closed else { return (false, false, false) }
            state.pending.append((text, arrived))
            let start = !state.running
            state.running = true
            let pause = !state.readsPaused && state.pending.count >= Self.pauseAt
            if pause { state.readsPaused = true }
            return (start, pause, true)
        }
        if queued { metrics.commandsQueued(by: 1) }
        if pause {
            metrics.readsPaused()
            applyReads()
        }
        if start { Task { await self.run() } }
    }

    /// Sets the socket's reading to what the state asks now, on the event loop. Pauses
    /// are decided on the loop and resumes on the task that runs commands; each decision
    /// applies the state as it is when it runs rather than its own, so that a resume
    /// decided before a pause but applied after it cannot leave the socket read while
    /// the queue is full.
    private func applyReads() {
        let channel = connection.channel
        guard channel.eventLoop.inEventLoop else {
            channel.eventLoop.execute { self.applyReads() }
            return
        }
        let paused = state.withLock { $0.readsPaused }
        channel.setOption(ChannelOptions.autoRead, value: !paused).whenFailure { _ in }
    }

    private func run() async {
        while true {
            let (next, resume, waiters) = state.withLock { state -> ((text: ByteBuffer, arrived: DefaultTracerClock.Instant?)?, Bool, [CheckedContinuation<Void, Never>]) in
                guard !state.closed, let next = state.pending.popFirst() else {
                    state.running = false
                    defer { state.idleWaiters.removeAll() }
                    return (nil, false, state.idleWaiters)
                }
                let resume = state.readsPaused && state.pending.count <= Self.resumeAt
                if resume { state.readsPaused = false }
                return (next, resume, [])
            }
            if next != nil { metrics.commandsQueued(by: -1) }
            if resume { applyReads() }
            guard let next else {
                for waiter in waiters { waiter.resume() }
                return
            }
            let hold = await commands.handle(next.text, arrived: next.arrived, on: connection, as: caller, pipeline: pipeline)
            if let wait = self.hold(after: hold) {
                // Meanwhile the commands pile up to `pauseAt` and the socket is read no more.
                try? await Task.sleep(for: wait)
            }
        }
    }

    /// The longest a refusal holds the next command (so that a close is not held long).
    static let maxHold = Duration.milliseconds(500)

    /// How long to wait before the next command after one that asked for `hold` (a rate
    /// refusal): the wait it names, doubled for each refusal in a row before it, up to
    /// ``maxHold``. A connection sending just past its budget waits for its next token and
    /// goes on; several connections of one user flooding at once back off until each is
    /// refused about twice a second, so that between them they cannot make the node answer
    /// refusals as fast as they send.
    private func hold(after hold: Duration?) -> Duration? {
        let inARow = state.withLock { state -> Int in
            state.refusalsInARow = hold == nil ? 0 : state.refusalsInARow + 1
            return state.refusalsInARow
        }
        guard let hold else { return nil }
        return min(hold * (1 << min(inARow - 1, 16)), Self.maxHold)
    }

    /// Drops the commands not yet started and returns once the one running, and the
    /// pipelined sends before it, have finished.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (idle, dropped) = state.withLock { state -> (Bool, Int) in
                state.closed = true
                let dropped = state.pending.count
                state.pending.removeAll()
                if !state.running { return (true, dropped) }
                state.idleWaiters.append(continuation)
                return (false, dropped)
            }
            metrics.commandsQueued(by: -dropped)
            if idle { continuation.resume() }
        }
        await pipeline.waitUntilIdle()
    }
}
