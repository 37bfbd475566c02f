import Foundation
import GreenroomStorage

/// Where the outbox's jobs go: one webhook endpoint, or APNs.
package protocol OutboxDestination: Sendable {
    /// The scope its jobs are kept in.
    var id: String { get }
    /// Makes one attempt at `job` (held by this node).
    func deliver(_ job: OutboxJobRecord) async -> DeliveryOutcome
}

/// What one attempt came to.
package enum DeliveryOutcome: Sendable {
    /// Done: the job is removed.
    case delivered
    /// Failed: tried again later, or parked after the last attempt.
    case failed(String)
    /// The destination removed or replaced the job itself (a message's push, fanned out to
    /// its recipients' devices).
    case replaced
}

/// The destinations one capability keeps (the app's webhook endpoints; APNs), as the
/// dispatcher sees them: which there are, and what becomes of a job that failed its last
/// attempt. The capability also sets their routes on the ``Outbox``.
package protocol OutboxDestinations: Sendable {
    /// Done once, before the dispatcher's first scan (the configured endpoint is stored).
    func prepare() async throws
    /// Reloads what other nodes changed; called about every ``Outbox/refreshInterval``.
    func refresh() async throws
    /// The destinations now.
    var current: [any OutboxDestination] { get }
    /// Keeps (or drops) `job`, which failed its last attempt with `failure` and was removed
    /// from the queue in `transaction`.
    func park(_ job: OutboxJobRecord, failure: String, in transaction: any StorageTransaction) async throws
    /// Told once a job's parking committed.
    func parked(_ job: OutboxJobRecord)
    /// Told after each scan of the queue: how many of its jobs wait (up to the scan's
    /// limit) and the age of the oldest one's event.
    func scanned(length: Int, oldestAge: TimeInterval)
    /// Shuts down what it opened (connections), after the dispatcher's last attempt.
    func shutdown() async
}

extension OutboxDestinations {
    package func prepare() async throws {}
    package func refresh() async throws {}
    package func parked(_ job: OutboxJobRecord) {}
    package func scanned(length: Int, oldestAge: TimeInterval) {}
    package func shutdown() async {}
}

/// How the dispatcher retries: attempts, backoff, concurrency.
package struct OutboxPolicy: Sendable {
    /// How long one attempt may take; a job is held a little longer.
    package var timeout: TimeInterval
    /// Attempts before a job is parked.
    package var maxAttempts: Int
    /// The wait before the first retry; it doubles each attempt, up to ``retryCap``.
    package var retryBase: TimeInterval
    /// The longest wait between attempts.
    package var retryCap: TimeInterval
    /// Lanes delivered at once by one node.
    package var concurrency: Int

    /// A policy of the given attempts, backoff and concurrency.
    package init(timeout: TimeInterval, maxAttempts: Int, retryBase: TimeInterval, retryCap: TimeInterval, concurrency: Int) {
        self.timeout = timeout
        self.maxAttempts = maxAttempts
        self.retryBase = retryBase
        self.retryCap = retryCap
        self.concurrency = concurrency
    }
}
