import Foundation
import GreenroomProtocol
import Logging
import ServiceLifecycle

/// Announces the changed counts of a kind of room (live events, meetings) once a second,
/// by calling its `flush`: at most one count event per room a second, whatever changed.
package struct CountAnnouncer: Service {
    package let what: String
    package let flush: @Sendable () async throws -> Void
    package let logger: Logger
    package static let period: Duration = .seconds(1)

    /// Calls `flush` once a second; its failures are logged as announcing `what` counts.
    package init(what: String, flush: @escaping @Sendable () async throws -> Void, logger: Logger) {
        self.what = what
        self.flush = flush
        self.logger = logger
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.period)
                do {
                    try await flush()
                } catch {
                    logger.error("announcing \(what) counts failed: \(error)")
                }
            }
        }
    }
}

/// Ids waiting to be handled, shared by the copies of a service.
package final class PendingSet: Sendable {
    private let ids = Locked<Set<String>>([])

    /// An empty set.
    package init() {}

    package func insert(_ id: String) { _ = ids.withLock { $0.insert(id) } }

    /// Takes every id out.
    package func take() -> Set<String> { ids.withLock { ids in defer { ids = [] }; return ids } }
}
