import Foundation
import GreenroomProtocol
import Synchronization

/// The webhook outbox: every event a transaction appends that an endpoint wants gets its
/// delivery job written in that same transaction, so an event is never stored without its
/// deliveries, nor a delivery queued for an event that was rolled back.
///
/// It knows the endpoints from a cache: a change on this node applies at once, one made on
/// another node within ``refreshInterval`` (the dispatcher reloads it).
final class Outbox: Sendable {
    private let endpoints = Locked<[WebhookEndpointRecord]>([])
    /// Whether any endpoint exists: one atomic load on the write path otherwise.
    private let active = Atomic<Bool>(false)
    /// Set when a transaction queued jobs; the writer wakes the dispatcher after its commit.
    private let queued = Atomic<Bool>(false)
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// How often endpoints are reloaded from storage (changes made on other nodes).
    static let refreshInterval: TimeInterval = 1

    /// The event types that push notifications (``PushSender``); none when push is not set up.
    let pushTypes: Set<String>

    /// - Parameter pushTypes: the event types a push is queued for.
    init(pushTypes: Set<String> = []) {
        self.pushTypes = pushTypes
        active.store(!pushTypes.isEmpty, ordering: .relaxed)
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Replaces the cached endpoints.
    func setEndpoints(_ records: [WebhookEndpointRecord]) {
        endpoints.withLock { $0 = records }
        active.store(!records.isEmpty || !pushTypes.isEmpty, ordering: .releasing)
    }

    /// The cached endpoints.
    var current: [WebhookEndpointRecord] { endpoints.withLock { $0 } }

    /// `transaction`, wrapped to queue deliveries when any endpoint exists.
    func wrap(_ transaction: any StorageTransaction) -> any StorageTransaction {
        guard active.load(ordering: .acquiring) else { return transaction }
        return InterceptingTransaction(inner: transaction) { appends, inner in
            let outcomes = try await inner.append(appends)
            for job in self.jobs(for: outcomes) { try await inner.save(job) }
            return outcomes
        }
    }

    /// The jobs for freshly stored events: one per endpoint that wants it, and a push to fan
    /// out to its recipients' devices when it is a type that pushes.
    func jobs(for outcomes: [AppendOutcome]) -> [OutboxJobRecord] {
        let endpoints = current
        var jobs: [OutboxJobRecord] = []
        for outcome in outcomes where !outcome.duplicate {
            for endpoint in endpoints where endpoint.receives(outcome.event.type) {
                jobs.append(OutboxJobRecord(endpointId: endpoint.id, event: outcome.event, dueAt: outcome.event.at))
            }
            if pushTypes.contains(outcome.event.type) {
                jobs.append(OutboxJobRecord(endpointId: PushSender.destinationId, event: outcome.event, dueAt: outcome.event.at))
            }
        }
        if !jobs.isEmpty { queued.store(true, ordering: .relaxed) }
        return jobs
    }

    /// Called by the writer after each commit: wakes the dispatcher when jobs were queued.
    func committed() {
        if queued.exchange(false, ordering: .relaxed) { wakeContinuation.yield() }
    }

    /// Wakes the dispatcher (a replay, a new endpoint).
    func nudge() { wakeContinuation.yield() }

    /// The dispatcher's wake-ups.
    var wakeUps: AsyncStream<Void> { wake }

    /// Ends the wake-ups.
    func finish() { wakeContinuation.finish() }
}
