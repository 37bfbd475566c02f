import GreenroomProtocol

/// A first-come, first-served lock for async code: one holder at a time, across awaits.
///
/// Actors are re-entrant at every `await`, so they cannot keep a database transaction to
/// one caller; this lock can. A waiter whose task is cancelled keeps its place and is
/// served in turn (its `body` sees the cancellation), so no waiter is ever left queued.
/// (Tested in ConcurrencyPrimitiveTests.)
package final class AsyncLock: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var head = 0
    }

    private let state = Locked(State())

    package init() {}

    /// Whether the lock is held, and how many wait for it (for diagnostics and tests: a
    /// waiter left behind would show here for good).
    package var status: (locked: Bool, waiting: Int) {
        state.withLock { ($0.locked, $0.waiters.count - $0.head) }
    }

    /// Runs `body` holding the lock.
    package func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state -> Bool in
                if !state.locked {
                    state.locked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if acquired { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.head < state.waiters.count else {
                state.locked = false
                state.waiters.removeAll(keepingCapacity: true)
                state.head = 0
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            return waiter
        }
        next?.resume()
    }
}
