import Logging
import ServiceLifecycle

/// Runs a service whose graceful shutdown may wait on its clients (the HTTP server waits for
/// every open connection to finish its request), and cancels it when that takes longer than
/// `grace`: a client that holds a half-sent request or an idle keep-alive connection cannot
/// keep the server from stopping. Once it has stopped, `afterwards` runs (closing what the
/// cancelled service left open).
struct BoundedShutdown<Inner: Service>: Service {
    let inner: Inner
    let grace: Duration
    let what: String
    let logger: Logger
    var afterwards: @Sendable () -> Void = {}

    private struct Overdue: Error {}

    func run() async throws {
        defer { afterwards() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await inner.run() }
            group.addTask {
                // Returns when shutdown starts, throws when the group is cancelled.
                try await gracefulShutdown()
                try await Task.sleep(for: grace)
                throw Overdue()
            }
            do {
                try await group.next()
                group.cancelAll()
            } catch is Overdue {
                logger.warning("shutting down: \(what) did not stop within \(grace); cancelling it")
                group.cancelAll()
                // Wait for the cancelled service itself; it is stopping, so its error is not news.
                while let _ = try? await group.next() {}
            }
        }
    }
}
