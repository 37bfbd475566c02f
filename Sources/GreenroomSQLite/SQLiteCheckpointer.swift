import GreenroomProtocol
import GreenroomStorage
import Logging

/// Copies SQLite's write-ahead log back into the database file on a connection and thread
/// of its own, every so many commits, so that the writer does not stop to copy it inside a
/// commit (SQLite's automatic checkpoint runs in the committing call, which delays that
/// batch and every batch queued behind it). Passive checkpoints never block the writer or
/// readers. The log restarts from its beginning only once every frame in it is copied,
/// which a checkpoint running beside a busy writer never sees; so after each background
/// checkpoint the writer, between two transactions, copies the few frames written since
/// (``didCommit()`` says when), and its next transaction restarts the log.
package final class SQLiteCheckpointer: Sendable {
    /// Commits between checkpoints: at some ten pages a grouped commit, about SQLite's own
    /// default of 1,000 pages.
    package static let commitsPerCheckpoint = 100

    private struct State {
        var commits = 0
        var running = false
        var caughtUp = false
        var closed = false
    }

    private let handle: SQLiteHandle
    private let thread: SQLiteThread
    private let logger: Logger
    private let state = Locked(State())

    private init(handle: SQLiteHandle, thread: SQLiteThread, logger: Logger) {
        self.handle = handle
        self.thread = thread
        self.logger = logger
    }

    /// Opens the checkpointer's connection to the database at `path`.
    package static func open(path: String, logger: Logger) async throws -> SQLiteCheckpointer {
        let thread = SQLiteThread(name: "sqlite-checkpt")
        do {
            let handle = try await thread.run {
                let handle = try SQLiteHandle(path: path)
                try handle.query("PRAGMA busy_timeout=5000")
                return handle
            }
            return SQLiteCheckpointer(handle: handle, thread: thread, logger: logger)
        } catch {
            try? await thread.shutdown()
            throw error
        }
    }

    /// Counts a commit; starts a background checkpoint when enough have passed and none is
    /// running. - Returns: whether the writer should now copy the frames written since the
    /// last background checkpoint (one passive checkpoint on its own connection, before its
    /// next transaction).
    package func didCommit() -> Bool {
        let (start, finish) = state.withLock { state -> (Bool, Bool) in
            state.commits += 1
            let finish = state.caughtUp
            state.caughtUp = false
            guard state.commits >= Self.commitsPerCheckpoint, !state.running, !state.closed else { return (false, finish) }
            state.commits = 0
            state.running = true
            return (true, finish)
        }
        if start {
            Task {
                var done = false
                do {
                    try await checkpoint()
                    done = true
                } catch {
                    if !state.withLock({ $0.closed }) { logger.warning("SQLite checkpoint failed: \(error)") }
                }
                state.withLock { state in
                    state.running = false
                    state.caughtUp = done
                }
            }
        }
        return finish
    }

    /// Runs one passive checkpoint now.
    package func checkpoint() async throws {
        try await thread.run { _ = try self.handle.query("PRAGMA wal_checkpoint(PASSIVE)") }
    }

    /// Closes the connection (after a running checkpoint) and stops the thread.
    package func close() async throws {
        state.withLock { $0.closed = true }
        try await thread.run { self.handle.close() }
        try await thread.shutdown()
    }
}
