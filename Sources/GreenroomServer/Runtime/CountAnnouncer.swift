import Foundation
import Logging
import ServiceLifecycle

/// Announces the changed counts of a kind of room (live events, meetings) once a second,
/// by calling its `flush`: at most one count event per room a second, whatever changed.
struct CountAnnouncer: Service {
    let what: String
    let flush: @Sendable () async throws -> Void
    let logger: Logger
    static let period: Duration = .seconds(1)

    func run() async throws {
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
final class PendingSet: Sendable {
    private let ids = Locked<Set<String>>([])

    func insert(_ id: String) { _ = ids.withLock { $0.insert(id) } }

    /// Takes every id out.
    func take() -> Set<String> { ids.withLock { ids in defer { ids = [] }; return ids } }
}
