import Foundation
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers the outbox's jobs to their destinations (webhook endpoints, APNs), on every
/// node: at least once, in order per lane (a webhook's stream, a push's device), retried with
/// capped exponential backoff and jitter, parked after the last attempt.
///
/// A lane's jobs are attempted one at a time, in order; a job is held in a
/// transaction before it is sent (the hold names no node and runs out, so a node that dies
/// mid-delivery leaves it to another), and removed or rescheduled in another after the
/// answer. Two nodes never send the same job at once; a job is sent twice only when a node
/// dies between sending it and recording the answer, and then with the same id.
package final class OutboxDispatcher: Service, Sendable {
    private let storage: any GreenroomStorage
    private let events: EventLog
    private let outbox: Outbox
    package let policy: OutboxPolicy
    private let logger: Logger
    /// The capabilities' destinations, added as they are made.
    private let families = Locked<[any OutboxDestinations]>([])
    /// The lanes (per destination) this node is delivering, one worker each.
    private let working = Locked<Set<String>>([])
    private let stopping = Atomic<Bool>(false)
    /// How often the queue is scanned when nothing wakes the dispatcher.
    package static let pollInterval: Duration = .milliseconds(500)
    /// How many jobs one scan reads, in pages.
    package static let scanLimit = 5_000

    package init(storage: any GreenroomStorage, events: EventLog, policy: OutboxPolicy, logger: Logger) {
        self.storage = storage
        self.events = events
        self.outbox = events.outbox
        self.policy = policy
        self.logger = logger
    }

    /// Adds a capability's destinations (before the server runs).
    package func add(_ destinations: any OutboxDestinations) {
        families.withLock { $0.append(destinations) }
    }

    package func run() async throws {
        let families = families.withLock { $0 }
        for family in families {
            do {
                try await family.prepare()
            } catch {
                logger.error("outbox destinations could not be prepared: \(error)")
            }
        }
        await withGracefulShutdownHandler {
            let ticks = Task { [outbox] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.pollInterval)
                    outbox.nudge()
                }
            }
            defer { ticks.cancel() }
            // Workers stop after the attempt they are making, which is recorded.
            await withDiscardingTaskGroup { group in
                var reloaded = ContinuousClock.now - .seconds(60)
                for await _ in outbox.wakeUps {
                    if stopping.load(ordering: .relaxed) { break }
                    if ContinuousClock.now - reloaded >= .seconds(Outbox.refreshInterval) {
                        await refresh(families)
                        reloaded = .now
                    }
                    for family in families { await scan(family, &group) }
                }
            }
            for family in families { await family.shutdown() }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
            self.outbox.finish()
        }
    }

    /// Has every family reload what other nodes changed.
    private func refresh(_ families: [any OutboxDestinations]) async {
        for family in families {
            do {
                try await family.refresh()
            } catch {
                logger.warning("outbox destinations could not be reloaded: \(error)")
            }
        }
    }

    /// Reads a family's queues and starts a worker for each lane whose first job is due and
    /// not held, up to the node's concurrency.
    private func scan(_ family: any OutboxDestinations, _ group: inout DiscardingTaskGroup) async {
        let now = Date()
        var length = 0
        var oldest = now
        for destination in family.current.map(\.id) {
            var after = RecordCursor(sort: 0, id: "")
            var read = 0
            while read < Self.scanLimit {
                var query = RecordQuery(kind: OutboxJobRecord.recordKind, scope: destination, limit: 500)
                query.after = after
                guard let page = try? await storage.list(OutboxJobRecord.self, query), !page.isEmpty else { break }
                read += page.count
                length += page.count
                var seen = Set<String>()
                for job in page {
                    oldest = min(oldest, job.event.at)
                    let lane = job.lane
                    guard seen.insert(lane).inserted, job.dueAt <= now, (job.heldUntil ?? .distantPast) <= now else { continue }
                    let key = destination + "\u{0}" + lane
                    let started = working.withLock { working in
                        working.count < policy.concurrency && working.insert(key).inserted
                    }
                    guard started else { continue }
                    group.addTask {
                        await self.work(family, destinationId: destination, lane: lane)
                        _ = self.working.withLock { $0.remove(key) }
                    }
                }
                guard page.count == query.limit, let last = page.last else { break }
                // On past the rest of the last lane's jobs.
                after = RecordCursor(sort: 0, id: OutboxJobRecord.after(lane: last.lane))
            }
        }
        family.scanned(length: length, oldestAge: max(0, now.timeIntervalSince(oldest)))
    }

    /// Delivers a lane's jobs in order until none is due or one fails.
    private func work(_ family: any OutboxDestinations, destinationId: String, lane: String) async {
        while !stopping.load(ordering: .relaxed), !Task.isCancelled {
            do {
                guard let destination = family.current.first(where: { $0.id == destinationId }),
                      let job = try await firstJob(destinationId: destinationId, lane: lane),
                      let held = try await hold(job) else { return }
                switch await destination.deliver(held) {
                case .delivered:
                    _ = try await record(held, failure: nil, family)
                case .failed(let reason):
                    guard try await record(held, failure: reason, family) else { return }
                case .replaced:
                    continue
                }
            } catch {
                logger.warning("a delivery on \(lane) for \(destinationId) failed to be recorded: \(error)")
                return
            }
        }
    }

    /// The first job of `lane` for the destination, if any.
    private func firstJob(destinationId: String, lane: String) async throws -> OutboxJobRecord? {
        var query = RecordQuery(kind: OutboxJobRecord.recordKind, scope: destinationId, limit: 1)
        query.after = RecordCursor(sort: 0, id: OutboxJobRecord.before(lane: lane))
        return try await storage.list(OutboxJobRecord.self, query).first { $0.lane == lane }
    }

    /// Holds `job` for this node when it is still due and not held; `nil` otherwise.
    private func hold(_ job: OutboxJobRecord) async throws -> OutboxJobRecord? {
        let holdFor = policy.timeout + 5
        return try await events.transact { transaction in
            guard var current = try await transaction.load(OutboxJobRecord.self, scope: job.destinationId, id: job.recordId) else { return nil }
            let now = Date()
            guard current.dueAt <= now, (current.heldUntil ?? .distantPast) <= now else { return nil }
            current.heldUntil = now.addingTimeInterval(holdFor)
            try await transaction.save(current)
            return current
        }
    }

    /// Records an attempt's outcome: a delivered job is removed; a failed one is retried
    /// later, or parked after its last attempt. Returns whether the stream's next job may
    /// be sent now.
    private func record(_ job: OutboxJobRecord, failure: String?, _ family: any OutboxDestinations) async throws -> Bool {
        let policy = policy
        let parked = try await events.transact { transaction -> OutboxJobRecord? in
            guard var current = try await transaction.load(OutboxJobRecord.self, scope: job.destinationId, id: job.recordId) else { return nil }
            guard let failure else {
                try await transaction.remove(OutboxJobRecord.self, scope: job.destinationId, id: job.recordId)
                return nil
            }
            current.attempts = job.attempts + 1
            current.lastError = failure
            current.heldUntil = nil
            guard current.attempts < policy.maxAttempts else {
                try await transaction.remove(OutboxJobRecord.self, scope: job.destinationId, id: job.recordId)
                try await family.park(current, failure: failure, in: transaction)
                return current
            }
            current.dueAt = Date().addingTimeInterval(Self.backoff(attempts: current.attempts, policy))
            try await transaction.save(current)
            return nil
        }
        if let parked {
            family.parked(parked)
            logger.warning("delivery of \(parked.event.stream)/\(parked.event.offset) to \(parked.destinationId) parked after \(policy.maxAttempts) attempts: \(failure ?? "")")
        }
        return failure == nil || parked != nil
    }

    /// The wait before the next attempt after `attempts` failed ones: the base doubled each
    /// time, capped, with ±20% jitter so that retries of many jobs spread out.
    package static func backoff(attempts: Int, _ policy: OutboxPolicy) -> TimeInterval {
        let doubled = policy.retryBase * pow(2, Double(min(max(attempts - 1, 0), 40)))
        return min(policy.retryCap, doubled) * Double.random(in: 0.8...1.2)
    }
}
