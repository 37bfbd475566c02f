import GreenroomStorage
import NIOPosix

/// A thread of its own for one SQLite connection, usable as a task executor: work that
/// prefers it runs there, so the connection's blocking calls (a commit's fsync, a busy
/// wait) never hold Swift's shared threads, and a whole write transaction runs there as
/// plain function calls instead of a thread hand-off per statement.
package final class SQLiteThread: TaskExecutor {
    private let pool: NIOThreadPool

    package init() {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        pool.submit { state in
            switch state {
            case .active:
                job.runSynchronously(on: executor)
            case .cancelled:
                // After shutdown the pool hands the item back: the job still runs, on the
                // shared executor, so that no task is left suspended forever.
                globalConcurrentExecutor.enqueue(ExecutorJob(job))
            }
        }
    }

    /// Runs `body` on this thread and returns its result.
    package func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(self) { try await body() }
    }

    /// Stops the thread once the work queued on it is done.
    package func shutdown() async throws {
        try await pool.shutdownGracefully()
    }
}
