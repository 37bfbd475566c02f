#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import GreenroomStorage
import NIOPosix

/// A thread of its own for one SQLite connection, usable as a task executor: work that
/// prefers it runs there, so the connection's blocking calls (a commit's fsync, a busy
/// wait) never hold Swift's shared threads, and a whole write transaction runs there as
/// plain function calls instead of a thread hand-off per statement.
package final class SQLiteThread: TaskExecutor {
    private let pool: NIOThreadPool

    /// Starts the thread, named `name` (at most 15 bytes are kept) so that `top -H`,
    /// `/proc/PID/task/*/comm` and a profile tell the writer, the reader and the
    /// checkpointer apart instead of showing each as the thread pool's `TP-#0`.
    package init(name: String) {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        // The pool's one thread runs its items in order, so this one names it before any
        // job runs there.
        pool.submit { _ in Self.nameCurrentThread(name) }
    }

    private static func nameCurrentThread(_ name: String) {
        // Linux refuses a name of 16 bytes or more; cut it at a scalar's boundary.
        var short = ""
        for scalar in name.unicodeScalars {
            guard short.utf8.count + String(scalar).utf8.count <= 15 else { break }
            short.unicodeScalars.append(scalar)
        }
        #if canImport(Darwin)
        _ = pthread_setname_np(short)
        #elseif canImport(Glibc)
        // Glibc's module leaves out `pthread_setname_np` (a GNU extension); the kernel's
        // own interface to the same name is this file, writable by the thread itself.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = short.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
        #endif
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
