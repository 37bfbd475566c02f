import Foundation
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle
import Tracing

/// The node's single writer: appends and capability transactions (a channel change with
/// its events, …) are queued, written in grouped transactions (one commit for many, each
/// transaction in its own savepoint), then their events are handed to the hub in offset
/// order, and acknowledged once the event loops have queued them on their subscribers (the
/// writer goes on to the next batch meanwhile).
///
/// One writer per node keeps offsets in order without a lock per stream; the grouped
/// commit keeps durable writes cheap.
package final class EventLog: Service, Sendable {
    /// Called in the task that queues a write, once the write is queued in order. The
    /// command layer sets it for a pipelined command, to let the connection read its next
    /// command then (``CommandTurn``); the writer knows nothing of commands.
    @TaskLocal package static var whenQueued: QueuedHook?

    /// What ``whenQueued`` calls. A struct rather than a bare closure: with Swift 6.3.1's
    /// optimizer, a task-local whose value is an optional closure crashes in
    /// `swift_task_localValuePush` (the closure's type metadata, looked up by mangled name,
    /// comes back null), so a release build crashed on every pipelined command.
    package struct QueuedHook: Sendable {
        package let action: @Sendable () -> Void

        /// A hook that runs `action`.
        package init(action: @escaping @Sendable () -> Void) {
            self.action = action
        }
    }

    private struct Pending: Sendable {
        var step: WriteStep
        /// Resumes the caller with the step's result or error.
        var finish: @Sendable (Result<Void, any Error>) -> Void
        /// The step's `store.write` span, when the caller is traced: from its queueing to
        /// its commit.
        var span: (any Span)?
    }

    private struct State {
        var pending: [Pending] = []
        var stopped = false
    }

    private let storage: any GreenroomStorage
    private let broker: any Broker
    private let metrics: ServerMetrics
    private let retentionCount: UInt64
    private let logger: Logger
    /// Makes the spans of traced writes; `nil` when tracing is off.
    private let tracer: (any Tracer)?
    /// Queues, in each transaction, the deliveries its appended events owe the outbox's
    /// destinations (their owners set the routes).
    package let outbox = Outbox()
    private let state = Locked(State())
    private let wake: AsyncStream<Void>
    private let wakeContinuation: AsyncStream<Void>.Continuation
    /// Failures tests inject into transactions (none unless armed).
    package let faults = FaultPlan()
    package static let maxBatch = 512
    /// The most changes that may wait for the writer; more wait to be queued, for at most
    /// `queueWait`, then are refused with `overloaded` (the node is writing all it can).
    package let queueLimit: Int
    package let queueWait: Duration

    /// - Parameter broker: hands a stored event to subscribers (the local hub, or the
    ///   relay that orders events of all nodes).
    /// - Parameter tracer: makes a `store.write` span for each write queued by a traced
    ///   caller (``ServiceContext/current`` holds its span), whose events are handed on with
    ///   it; `nil` when tracing is off.
    package init(storage: any GreenroomStorage, broker: any Broker, metrics: ServerMetrics, retentionCount: UInt64, logger: Logger,
         queueLimit: Int = 10_000, queueWait: Duration = .seconds(5), tracer: (any Tracer)? = nil) {
        self.storage = storage
        self.tracer = tracer
        self.queueLimit = queueLimit
        self.queueWait = queueWait
        self.broker = broker
        self.metrics = metrics
        self.retentionCount = retentionCount
        self.logger = logger
        (wake, wakeContinuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Relays a signal to the subscribers of its stream on every node without storing it:
    /// no offset, no replay, no writer (``StreamSignal``).
    package func signal(_ signal: StreamSignal) {
        broker.signal(signal)
    }

    /// Appends one event; returns once it is durable and handed to local subscribers.
    package func append(_ append: EventAppend) async throws -> AppendOutcome {
        let result = StepResult<AppendOutcome>()
        let outbox = outbox
        try await enqueue(WriteStep(isolated: false) { transaction in
            guard let outcome = try await outbox.wrap(transaction).append([append]).first else {
                throw GreenroomServerError.storage("an append returned nothing")
            }
            result.set(outcome)
        })
        guard let outcome = result.get else { throw GreenroomServerError.storage("an append returned nothing") }
        return outcome
    }

    /// Runs `body` atomically (its record changes and appends commit together or not at
    /// all); returns once it is durable and its events are handed to local subscribers.
    /// `prefetch` names records `body` will read, `streams` the streams it will append to
    /// (see ``WriteStep/prefetch``).
    package func transact<T: Sendable>(prefetch: [RecordKey] = [], streams: [String] = [],
                               _ body: @escaping @Sendable (any StorageTransaction) async throws -> T) async throws -> T {
        let result = StepResult<T>()
        let faults = faults, outbox = outbox
        try await enqueue(WriteStep(prefetch: prefetch, streams: streams) { transaction in
            var transaction = outbox.wrap(transaction)
            if faults.isArmed { transaction = faults.wrap(transaction) }
            result.set(try await body(transaction))
        })
        guard let value = result.get else { throw GreenroomServerError.storage("a transaction returned nothing") }
        return value
    }

    private func enqueue(_ step: WriteStep) async throws {
        var step = step
        var span: (any Span)?
        if let tracer, let context = ServiceContext.current {
            let write = tracer.startSpan("store.write", context: context, ofKind: .internal)
            write.attributes["greenroom.writer.queued"] = state.withLock { $0.pending.count }
            step.trace = TraceContext.traceparent(of: write.context, tracer: tracer)
            span = write
        }
        do {
            try await enqueue(step, span: span)
        } catch {
            span?.fail(error)
            throw error
        }
    }

    private func enqueue(_ step: WriteStep, span: (any Span)?) async throws {
        // Push back: while the queue is full the caller waits (a command holds its
        // connection's next one meanwhile), and past the wait it is refused.
        if state.withLock({ $0.pending.count >= queueLimit }) {
            let deadline = ContinuousClock.now + queueWait
            while state.withLock({ $0.pending.count >= queueLimit && !$0.stopped }) {
                guard ContinuousClock.now < deadline else {
                    metrics.writerOverloaded()
                    throw GreenroomError(.overloaded, "the server is writing all it can; try again shortly")
                }
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let pending = Pending(step: step, finish: { continuation.resume(with: $0) }, span: span)
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.pending.append(pending)
                return true
            }
            if accepted {
                // Queued in order: whoever waits for that (a pipelined command) may go on.
                Self.whenQueued?.action()
                wakeContinuation.yield()
            } else {
                continuation.resume(throwing: GreenroomError(.unavailable, "the server is shutting down"))
            }
        }
    }

    /// The writes queued and not yet taken into a batch.
    package var queued: Int { state.withLock { $0.pending.count } }

    /// Writes queued appends until graceful shutdown, then drains what is left.
    package func run() async throws {
        // On the storage's own writing thread when it has one (SQLite's): the batch's
        // statements, its commit and the hand-off of its events run there without a hop
        // between threads per batch, which bench store shows (BENCHMARKS.md).
        await withTaskExecutorPreference(storage.writeExecutor) {
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
                let outcomes = try await storage.write(batch.map(\.step), retentionCount: retentionCount)
                var events: [StreamEvent] = []
                for case .success(let stored) in outcomes { events += stored }
                metrics.eventsAppended(events.count)
                outbox.committed()
                let traces = tracer == nil ? [] : Self.endSpans(batch, outcomes)
                // Acknowledged once the event loops have queued the events on their
                // subscribers; the writer goes on to the next batch meanwhile.
                broker.publish(events, traces: traces) {
                    for (pending, outcome) in zip(batch, outcomes) { pending.finish(outcome.map { _ in () }) }
                }
            } catch {
                logger.error("writing a batch of \(batch.count) failed: \(error)")
                let failure = (error as? GreenroomError) ?? GreenroomError(.internalError, "the change could not be stored")
                for pending in batch {
                    pending.span?.fail(failure)
                    pending.finish(.failure(failure))
                }
            }
        }
    }

    /// Ends the committed batch's write spans, and returns the trace of each of its new
    /// events in order: its step's span, or `nil` for an untraced step (none at all when no
    /// step was traced).
    private static func endSpans(_ batch: [Pending], _ outcomes: [StepOutcome]) -> [ServiceContext?] {
        guard batch.contains(where: { $0.span != nil }) else { return [] }
        var traces: [ServiceContext?] = []
        for (pending, outcome) in zip(batch, outcomes) {
            guard let span = pending.span else {
                if case .success(let stored) = outcome { traces += Array(repeating: nil, count: stored.count) }
                continue
            }
            span.attributes["greenroom.writer.batch"] = batch.count
            switch outcome {
            case .success(let stored):
                span.attributes["greenroom.events"] = stored.count
                traces += Array(repeating: span.context, count: stored.count)
                span.end()
            case .failure(let error):
                span.fail(error)
            }
        }
        return traces
    }
}
