import Foundation
import GreenroomProtocol
import GreenroomStorage
import Synchronization

/// The outbox: every event a transaction appends that a destination wants gets its
/// delivery job written in that same transaction, so an event is never stored without its
/// deliveries, nor a delivery queued for an event that was rolled back.
///
/// It knows which destinations want which events from routes their owners set (the app's
/// webhook endpoints, APNs): a change on this node applies at once, one made on another node
/// within ``refreshInterval`` (the dispatcher has the owners reload them).
package final class Outbox: Sendable {
    /// The routes by owner, and all of them in one list for the write path.
    private let routes = Locked<(byOwner: [String: [OutboxRoute]], all: [OutboxRoute])>(([:], []))
    /// Whether any route exists: one atomic load on the write path otherwise.
    private let active = Atomic<Bool>(false)
    /// Set when a transaction queued jobs; the writer wakes the dispatcher after its commit.
    private let queued = Atomic<Bool>(false)
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// How often destinations are reloaded from storage (changes made on other nodes).
    package static let refreshInterval: TimeInterval = 1

    package init() {
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Replaces the routes `owner` set (each owner, webhooks or push, keeps its own).
    package func setRoutes(_ routes: [OutboxRoute], of owner: String) {
        let any = self.routes.withLock { current in
            current.byOwner[owner] = routes.isEmpty ? nil : routes
            current.all = current.byOwner.values.flatMap { $0 }
            return !current.all.isEmpty
        }
        active.store(any, ordering: .releasing)
    }

    /// `transaction`, wrapped to queue deliveries when any route exists.
    package func wrap(_ transaction: any StorageTransaction) -> any StorageTransaction {
        guard active.load(ordering: .acquiring) else { return transaction }
        return InterceptingTransaction(inner: transaction) { appends, inner in
            let outcomes = try await inner.append(appends)
            for job in self.jobs(for: outcomes) { try await inner.save(job) }
            return outcomes
        }
    }

    /// The jobs for freshly stored events: one per destination whose route wants it.
    package func jobs(for outcomes: [AppendOutcome]) -> [OutboxJobRecord] {
        let routes = routes.withLock(\.all)
        var jobs: [OutboxJobRecord] = []
        for outcome in outcomes where !outcome.duplicate {
            for route in routes where route.wants(outcome.event.type) {
                jobs.append(OutboxJobRecord(destinationId: route.destinationId, event: outcome.event, dueAt: outcome.event.at))
            }
        }
        if !jobs.isEmpty { queued.store(true, ordering: .relaxed) }
        return jobs
    }

    /// Called by the writer after each commit: wakes the dispatcher when jobs were queued.
    package func committed() {
        if queued.exchange(false, ordering: .relaxed) { wakeContinuation.yield() }
    }

    /// Wakes the dispatcher (a replay, a new endpoint).
    package func nudge() { wakeContinuation.yield() }

    /// The dispatcher's wake-ups.
    package var wakeUps: AsyncStream<Void> { wake }

    /// Ends the wake-ups.
    package func finish() { wakeContinuation.finish() }
}

/// Which events one destination gets a job for.
package struct OutboxRoute: Sendable {
    /// The destination (``OutboxDestination/id``).
    package let destinationId: String
    /// Whether an event of the type goes to it.
    package let wants: @Sendable (_ type: String) -> Bool

    /// A route to `destinationId` for the event types `wants` accepts.
    package init(destinationId: String, wants: @escaping @Sendable (_ type: String) -> Bool) {
        self.destinationId = destinationId
        self.wants = wants
    }
}
