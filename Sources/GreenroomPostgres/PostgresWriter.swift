import GreenroomProtocol
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// The node's write connection and the thread it runs on, usable as a task executor: the
/// node's writer runs each batch on an event loop of its own, on one connection held for
/// it, so a statement's answer is read on the thread the batch waits on and the batch goes
/// on there in the same turn, with no lease from the pool and no hand-off to Swift's shared
/// threads per round trip.
///
/// A node has one writer, and its batch makes four round trips one after another (`BEGIN`,
/// the prefetch with the streams' locks, the writes, `COMMIT`), so what a round trip costs
/// beyond PostgreSQL's own work bounds the node's writes. On the pool's connections (a
/// lease per batch, a hand-off per answer) and with a statement per kind of write, `bench
/// store` at 64 in flight stored 2,154–2,592 messages a second; with this writer and one
/// statement for all the writes (``CombinedWrite``), 2,723–3,491 in the same minutes
/// (BENCHMARKS.md, issue 41).
package final class PostgresWriter: TaskExecutor {
    private let group: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    private let configuration: PostgresConnection.Configuration
    private let logger: Logger
    /// The held connection: made on first use, and again after it closed.
    private let held = Locked<PostgresConnection?>(nil)
    /// A transaction runs on the held connection (``claim()``).
    private let busy = Locked(false)
    /// Set once ``close()`` began: jobs then run on the shared executor.
    private let closing = Locked(false)

    /// The connection's `application_name`, as `pg_stat_activity` shows it.
    package static let applicationName = "greenroom-writer"

    /// A writer connecting with `configuration` (given its `application_name`).
    package init(configuration: PostgresConnection.Configuration, logger: Logger) {
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = group.next()
        var configuration = configuration
        configuration.options.additionalStartupParameters.append(("application_name", Self.applicationName))
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs `job` on the writer's loop (elsewhere once closing).
    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        if closing.withLock({ $0 }) {
            // The loop stops once closed; a job still runs, elsewhere, so that no task is
            // left suspended forever.
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
            return
        }
        loop.execute { job.runSynchronously(on: executor) }
    }

    deinit {
        // A connection must be closed before it goes: the close's callback holds it until then.
        if let connection = held.withLock({ $0 }) {
            connection.close().whenComplete { _ in _ = connection }
        }
        group.shutdownGracefully { _ in }
    }

    /// Claims the held connection for one transaction: `false` while another runs there
    /// (the node's writer runs one batch at a time; other callers then use the pool).
    /// ``release()`` gives it back.
    package func claim() -> Bool {
        busy.withLock { busy in
            if busy { return false }
            busy = true
            return true
        }
    }

    /// Gives back the connection ``claim()`` claimed.
    package func release() {
        busy.withLock { $0 = false }
    }

    /// Runs `body` in a transaction on the held connection (connecting first when there is
    /// none), on this writer's loop; the caller has claimed it (``claim()``). A connection
    /// that closed is dropped, so the next transaction connects again; one found closed at
    /// the `BEGIN` (nothing of the batch was sent) is replaced at once, and the batch runs
    /// on the new one.
    package func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await withTaskExecutorPreference(self) {
            var attempt = 1
            while true {
                let connection = try await self.connection()
                do {
                    return try await connection.withTransaction(logger: logger) { try await body($0) }
                } catch {
                    // Nothing of the batch was sent when the BEGIN failed: the connection is
                    // at fault, and the batch can run on another.
                    let unsent = (error as? PostgresTransactionError)?.beginError != nil
                    if connection.isClosed || unsent {
                        held.withLock { if $0 === connection { $0 = nil } }
                        try? await connection.close()
                    }
                    guard unsent, attempt == 1 else { throw error }
                    attempt += 1
                    logger.info("the write connection failed at BEGIN; connecting again")
                }
            }
        }
    }

    private func connection() async throws -> PostgresConnection {
        if let connection = held.withLock({ $0 }), !connection.isClosed { return connection }
        let connection = try await PostgresConnection.connect(on: loop, configuration: configuration, id: 2, logger: logger)
        held.withLock { $0 = connection }  // only the claimant connects, so nothing is replaced
        return connection
    }

    /// Closes the connection and stops the loop.
    package func close() async {
        closing.withLock { $0 = true }
        if let connection = held.withLock({ state in defer { state = nil }; return state }) {
            try? await connection.close()
        }
        try? await group.shutdownGracefully()
    }
}
