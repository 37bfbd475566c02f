import AsyncHTTPClient
import Foundation
import GreenroomProtocol
import Logging
import ServiceLifecycle
import Synchronization

/// Delivers the outbox's jobs, on every node: at least once, in order per stream and
/// endpoint, retried with capped exponential backoff and jitter, parked after the last
/// attempt.
///
/// A stream's jobs are attempted one at a time, first by offset; a job is held in a
/// transaction before it is sent (the hold names no node and runs out, so a node that dies
/// mid-delivery leaves it to another), and removed or rescheduled in another after the
/// answer. Two nodes never send the same job at once; a job is sent twice only when a node
/// dies between sending it and recording the answer, and then with the same id.
final class WebhookDispatcher: Service, Sendable {
    private let service: WebhookService
    private let storage: any GreenroomStorage
    private let events: EventLog
    private let outbox: WebhookOutbox
    let settings: WebhookSettings
    private let metrics: WebhookMetrics
    private let logger: Logger
    /// The streams (per endpoint) this node is delivering, one worker each.
    private let working = Locked<Set<String>>([])
    private let stopping = Atomic<Bool>(false)
    /// How often the queue is scanned when nothing wakes the dispatcher.
    static let pollInterval: Duration = .milliseconds(500)
    /// How many jobs one scan reads, in pages.
    static let scanLimit = 5_000

    init(service: WebhookService, metrics: WebhookMetrics, logger: Logger) {
        self.service = service
        self.storage = service.storage
        self.events = service.events
        self.outbox = service.events.outbox
        self.settings = service.settings
        self.metrics = metrics
        self.logger = logger
    }

    func run() async throws {
        // The configured endpoint is stored (or updated) before the first scan.
        do {
            try await service.applyConfiguration()
        } catch {
            logger.error("the configured webhook endpoint could not be stored: \(error)")
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
                    if ContinuousClock.now - reloaded >= .seconds(WebhookOutbox.refreshInterval) {
                        await reloadEndpoints()
                        reloaded = .now
                    }
                    await scan(&group)
                }
            }
        } onGracefulShutdown: {
            self.stopping.store(true, ordering: .relaxed)
            self.outbox.finish()
        }
    }

    /// Reloads the endpoints from storage (changes made on other nodes).
    func reloadEndpoints() async {
        do {
            try await service.reload()
        } catch {
            logger.warning("webhook endpoints could not be read: \(error)")
        }
    }

    /// Reads the queue and starts a worker for each stream whose first job is due and not
    /// held, up to the node's concurrency.
    private func scan(_ group: inout DiscardingTaskGroup) async {
        let now = Date()
        var length = 0
        var oldest = now
        for endpoint in outbox.current {
            var after = RecordCursor(sort: 0, id: "")
            var read = 0
            while read < Self.scanLimit {
                var query = RecordQuery(kind: WebhookJobRecord.recordKind, scope: endpoint.id, limit: 500)
                query.after = after
                guard let page = try? await storage.list(WebhookJobRecord.self, query), !page.isEmpty else { break }
                read += page.count
                length += page.count
                var seen = Set<String>()
                for job in page {
                    oldest = min(oldest, job.event.at)
                    let stream = job.event.stream
                    guard seen.insert(stream).inserted, job.dueAt <= now, (job.heldUntil ?? .distantPast) <= now else { continue }
                    let key = endpoint.id + "\u{0}" + stream
                    let started = working.withLock { working in
                        working.count < settings.concurrency && working.insert(key).inserted
                    }
                    guard started else { continue }
                    group.addTask {
                        await self.work(endpointId: endpoint.id, stream: stream)
                        _ = self.working.withLock { $0.remove(key) }
                    }
                }
                guard page.count == query.limit, let last = page.last else { break }
                // On past the rest of the last stream's jobs: `$` sorts after its `#…` ids and
                // before any other stream's (stream names hold no character below `-`).
                after = RecordCursor(sort: 0, id: last.event.stream + "$")
            }
        }
        metrics.queue(length: length, oldestAge: max(0, now.timeIntervalSince(oldest)))
    }

    /// Delivers a stream's jobs in order until none is due or one fails.
    private func work(endpointId: String, stream: String) async {
        while !stopping.load(ordering: .relaxed), !Task.isCancelled {
            do {
                guard let endpoint = outbox.current.first(where: { $0.id == endpointId }),
                      let job = try await firstJob(endpointId: endpointId, stream: stream),
                      let held = try await hold(job) else { return }
                let failure = await send(held, to: endpoint)
                metrics.attempt(succeeded: failure == nil, number: held.attempts + 1)
                guard try await record(held, failure: failure) else { return }
            } catch {
                logger.warning("webhook delivery on \(stream) for \(endpointId) failed to be recorded: \(error)")
                return
            }
        }
    }

    /// The first job of `stream` for the endpoint, if any.
    private func firstJob(endpointId: String, stream: String) async throws -> WebhookJobRecord? {
        var query = RecordQuery(kind: WebhookJobRecord.recordKind, scope: endpointId, limit: 1)
        query.after = RecordCursor(sort: 0, id: WebhookJobRecord.before(stream: stream))
        return try await storage.list(WebhookJobRecord.self, query).first { $0.event.stream == stream }
    }

    /// Holds `job` for this node when it is still due and not held; `nil` otherwise.
    private func hold(_ job: WebhookJobRecord) async throws -> WebhookJobRecord? {
        let holdFor = settings.timeout + 5
        return try await events.transact { transaction in
            guard var current = try await transaction.load(WebhookJobRecord.self, scope: job.endpointId, id: job.recordId) else { return nil }
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
    private func record(_ job: WebhookJobRecord, failure: String?) async throws -> Bool {
        let settings = settings
        let parked = try await events.transact { transaction -> Bool? in
            guard var current = try await transaction.load(WebhookJobRecord.self, scope: job.endpointId, id: job.recordId) else { return nil }
            guard let failure else {
                try await transaction.remove(WebhookJobRecord.self, scope: job.endpointId, id: job.recordId)
                return false
            }
            current.attempts = job.attempts + 1
            current.lastError = failure
            current.heldUntil = nil
            guard current.attempts < settings.maxAttempts else {
                try await transaction.remove(WebhookJobRecord.self, scope: job.endpointId, id: job.recordId)
                let delivery = WebhookDelivery(id: WebhookEvent.id(of: current.event), endpointId: current.endpointId, event: WebhookEvent(current.event),
                                               attempts: current.attempts, lastError: failure, parkedAt: Date())
                try await transaction.save(WebhookParkedRecord(delivery: delivery, event: current.event))
                return true
            }
            current.dueAt = Date().addingTimeInterval(Self.backoff(attempts: current.attempts, settings))
            try await transaction.save(current)
            return false
        }
        if parked == true {
            metrics.parkedOne()
            logger.warning("webhook delivery \(WebhookEvent.id(of: job.event)) to \(job.endpointId) parked after \(settings.maxAttempts) attempts: \(failure ?? "")")
        }
        return failure == nil || parked == true
    }

    /// The wait before the next attempt after `attempts` failed ones: the base doubled each
    /// time, capped, with ±20% jitter so that retries of many jobs spread out.
    static func backoff(attempts: Int, _ settings: WebhookSettings) -> TimeInterval {
        let doubled = settings.retryBase * pow(2, Double(min(max(attempts - 1, 0), 40)))
        return min(settings.retryCap, doubled) * Double.random(in: 0.8...1.2)
    }
}
