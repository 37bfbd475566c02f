import Foundation
import GreenroomProtocol
import Testing

/// Turns a hang that cancellation cannot end into a failure with a trail.
///
/// A test past its time limit is cancelled, but Swift Testing still waits for it to return;
/// one stuck on something that never resumes would hold the whole run until CI's own limit,
/// with nothing printed. Every server test's turn (``HeavyTests``) is watched by a thread of
/// its own, outside Swift concurrency's pool (so it fires even if that pool is starved): a
/// turn longer than ``limit`` prints the tests still running and the last steps noted, then
/// ends the test process with a failure.
enum Watchdog {
    /// A turn's bound, counted from the turn, where the suites' limit (``wholeRun``) also
    /// counts the wait for it (`GREENROOM_TEST_WATCHDOG_SECONDS` sets another).
    static let limit: Duration = .seconds(
        ProcessInfo.processInfo.environment["GREENROOM_TEST_WATCHDOG_SECONDS"].flatMap(Int.init) ?? 400)

    private struct Turn {
        let name: String
        let started: ContinuousClock.Instant
    }

    private struct State {
        var turns: [Int: Turn] = [:]
        var next = 0
        var steps: [String] = []
        var watching = false
    }

    private static let state = Locked(State())
    private static let clock = ContinuousClock()
    private static let origin = ContinuousClock.now

    /// Starts watching the current test's turn; returns its key for ``end(_:)``.
    static func begin() -> Int {
        let name = Test.current.map { $0.displayName ?? $0.name } ?? "a test"
        let (key, startWatching) = state.withLock { state -> (Int, Bool) in
            state.next += 1
            state.turns[state.next] = Turn(name: name, started: clock.now)
            defer { state.watching = true }
            return (state.next, !state.watching)
        }
        if startWatching { Thread.detachNewThread { watch() } }
        note("turn of \"\(name)\"")
        return key
    }

    /// Stops watching a turn.
    static func end(_ key: Int) {
        state.withLock { _ = $0.turns.removeValue(forKey: key) }
    }

    /// Notes a step (a server started, a page opened, a condition awaited), kept for the trail.
    static func note(_ step: String) {
        let seconds = Double((clock.now - origin).components.seconds)
        let line = String(format: "%7.0fs ", seconds) + step
        state.withLock { state in
            state.steps.append(line)
            if state.steps.count > 60 { state.steps.removeFirst(state.steps.count - 60) }
        }
    }

    private static func watch() {
        while true {
            sleep(5)
            let now = clock.now
            let (late, all, steps) = state.withLock { state in
                (state.turns.values.filter { now - $0.started > limit }, state.turns.values.map(\.name), state.steps)
            }
            guard !late.isEmpty else { continue }
            let report = """

                WATCHDOG: \(late.map { "\"\($0.name)\"" }.joined(separator: ", ")) ran past \(limit) and did not end when cancelled.
                Still running: \(all.joined(separator: "; "))
                The last steps noted:
                \(steps.joined(separator: "\n"))
                Ending the test process.

                """
            fflush(nil)
            FileHandle.standardError.write(Data(report.utf8))
            _exit(1)
        }
    }
}
