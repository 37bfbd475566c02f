import GreenroomProtocol

/// The order of one connection's commands. A connection runs its commands one after
/// another, except those registered as pipelined (sending a chat message): such a command
/// lets the next one start as soon as it has queued its write with the node's writer (or
/// has finished), so its place among the connection's writes is kept while several are
/// stored in one grouped commit. Any other command first waits until the pipelined ones
/// before it have finished, so it sees what they wrote.
final class CommandPipeline: Sendable {
    private struct State {
        var inFlight = 0
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Counts a pipelined command that starts.
    func begin() {
        state.withLock { $0.inFlight += 1 }
    }

    /// Counts a pipelined command that has finished.
    func end() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.idleWaiters.removeAll() }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once no pipelined command is running.
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                if state.inFlight == 0 { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }
}

/// The turn of a pipelined command: passed when the command has queued its write (the
/// node's writer calls ``EventLog/whenQueued``, which the router sets to ``pass()``) or has
/// finished, whichever comes first.
final class CommandTurn: Sendable {
    private struct State {
        var passed = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Locked(State())

    /// Lets the connection read its next command; later calls do nothing.
    func pass() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.passed else { return nil }
            state.passed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once the turn is passed.
    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passed = state.withLock { state -> Bool in
                if state.passed { return true }
                state.waiter = continuation
                return false
            }
            if passed { continuation.resume() }
        }
    }
}
