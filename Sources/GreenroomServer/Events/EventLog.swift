import Foundation
import GreenroomProtocol
import Logging
import ServiceLifecycle
import Synchronization

/// The single writer of every stream's log: appends are queued, written in grouped
/// transactions (one commit for many appends), then published to the hub in offset order,
/// and only then acknowledged.
///
/// One writer per node keeps offsets in order without a lock per stream; the grouped
/// commit keeps durable writes cheap.
final class EventLog: Service, Sendable {
    private struct Pending: Sendable {
        var append: EventAppend
        var continuation: CheckedContinuation<AppendOutcome, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var stopped = false
    }

    private let storage: any GreenroomStorage
    private let publish: @Sendable (StreamEvent) -> Void
    private let metrics: ServerMetrics
    private let retentionCount: UInt64
    private let logger: Logger
    private let state = Mutex(State())
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    static let maxBatch = 512

    /// - Parameter publish: hands a stored event to subscribers (the local hub, or the
    ///   relay that orders events of all nodes).
    init(storage: any GreenroomStorage, publish: @escaping @Sendable (StreamEvent) -> Void, metrics: ServerMetrics, retentionCount: UInt64, logger: Logger) {
        self.storage = storage
        self.publish = publish
        self.metrics = metrics
        self.retentionCount = retentionCount
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Appends one event; returns once it is durable and handed to local subscribers.
    func append(_ append: EventAppend) async throws -> AppendOutcome {
        try await withCheckedThrowingContinuation { continuation in
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.pending.append(Pending(append: append, continuation: continuation))
                return true
            }
            if accepted {
                wakeContinuation.yield()
            } else {
                continuation.resume(throwing: GreenroomError(.unavailable, "the server is shutting down"))
            }
        }
    }

    /// Writes queued appends until graceful shutdown, then drains what is left.
    func run() async throws {
        await withGracefulShutdownHandler {
            for await _ in wake {
                await drain()
                if state.withLock({ $0.stopped }) { break }
            }
        } onGracefulShutdown: {
            self.state.withLock { $0.stopped = true }
            self.wakeContinuation.finish()
        }
        await drain()
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Pending] in
                let count = min(state.pending.count, Self.maxBatch)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                return batch
            }
            if batch.isEmpty { return }
            do {
                let outcomes = try await storage.appendEvents(batch.map(\.append), retentionCount: retentionCount)
                var fresh = 0
                for outcome in outcomes where !outcome.duplicate {
                    publish(outcome.event)
                    fresh += 1
                }
                metrics.eventsAppended(fresh)
                for (pending, outcome) in zip(batch, outcomes) { pending.continuation.resume(returning: outcome) }
            } catch {
                logger.error("appending \(batch.count) events failed: \(error)")
                let failure = (error as? GreenroomError) ?? GreenroomError(.internalError, "the event could not be stored")
                for pending in batch { pending.continuation.resume(throwing: failure) }
            }
        }
    }
}
