import Foundation

/// A value behind a lock: the package's one lock for state shared between threads (the
/// server's and the SDK's).
///
/// Why not `Synchronization.Mutex`: on Linux it locks with a futex, which ThreadSanitizer
/// cannot see, so under `swift test --sanitize=thread` every access to a Mutex's value was
/// reported as a data race (113 reports in one run of the suite, a 4-thread counter under
/// Mutex among them while it still counted exactly). `NSLock` is a pthread mutex, which
/// ThreadSanitizer understands, so its reports are real races again. The two have not yet
/// been benchmarked side by side here (BENCHMARKS.md will say when they are).
package final class Locked<Value> {
    private let lock = NSLock()
    private var stored: Value

    /// Makes a lock holding `value`.
    package init(_ value: Value) {
        self.stored = value
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&stored)
    }

    /// A copy of the value, read under the lock.
    package var value: Value { withLock { $0 } }
}

// Safe: the value is only reached through `withLock`, under the lock, and it is Sendable,
// so what `withLock` hands out may cross threads.
extension Locked: @unchecked Sendable where Value: Sendable {}
