import Foundation
import GreenroomProtocol
import Metrics
import Prometheus
import Synchronization

/// The server's metrics, exported at `GET /metrics` in the Prometheus text format.
///
/// Each server owns its registry (several servers can run in one process, as in tests);
/// metrics are made through swift-metrics with that registry's factory.
public final class ServerMetrics: Sendable {
    /// The registry the metrics live in.
    public let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let connectionsGauge: CountingGauge
    private let queuedGauge: CountingGauge
    private let delivered: Metrics.Counter
    private let drops: Metrics.Counter
    private let appended: Metrics.Counter
    private let pauses: Metrics.Counter
    private let headerTimeouts: Metrics.Counter
    private let overloads: Metrics.Counter
    private let writerQueue: Metrics.Gauge
    private let mediaRooms: Metrics.Gauge
    private let livestreams: Metrics.Gauge
    private let deliveryLatency: Metrics.Timer
    private let commandCounters = Locked<[String: Metrics.Counter]>([:])
    /// Webhook deliveries, failures, retries, parked deliveries and the queue.
    package let webhooks: WebhookMetrics
    /// Pushes sent, failed, devices removed.
    package let push: PushMetrics

    /// Makes the metrics.
    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["greenroom_delivery_latency_seconds"] =
            [0.25, 0.5, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 10_000].map { Duration.microseconds(Int64($0 * 1_000)) }
        self.factory = factory
        connectionsGauge = CountingGauge(label: "greenroom_connections", factory: factory)
        queuedGauge = CountingGauge(label: "greenroom_commands_queued", factory: factory)
        delivered = Metrics.Counter(label: "greenroom_events_delivered_total", dimensions: [], factory: factory)
        drops = Metrics.Counter(label: "greenroom_outbound_queue_drops_total", dimensions: [], factory: factory)
        appended = Metrics.Counter(label: "greenroom_events_appended_total", dimensions: [], factory: factory)
        pauses = Metrics.Counter(label: "greenroom_reads_paused_total", dimensions: [], factory: factory)
        headerTimeouts = Metrics.Counter(label: "greenroom_header_timeouts_total", dimensions: [], factory: factory)
        overloads = Metrics.Counter(label: "greenroom_writes_overloaded_total", dimensions: [], factory: factory)
        writerQueue = Metrics.Gauge(label: "greenroom_writer_queue", dimensions: [], factory: factory)
        mediaRooms = Metrics.Gauge(label: "greenroom_media_rooms", dimensions: [], factory: factory)
        livestreams = Metrics.Gauge(label: "greenroom_livestreams", dimensions: [], factory: factory)
        deliveryLatency = Metrics.Timer(label: "greenroom_delivery_latency_seconds", dimensions: [], factory: factory)
        webhooks = WebhookMetrics(factory: factory)
        push = PushMetrics(factory: factory)
    }

    /// Counts a connection opened (+1) or closed (-1).
    package func connectionChanged(by delta: Int) { connectionsGauge.add(delta) }

    /// The number of open WebSocket connections.
    public var connections: Int { connectionsGauge.value }

    /// Counts commands read from sockets and not yet run (+) or run or dropped (-).
    package func commandsQueued(by delta: Int) { queuedGauge.add(delta) }

    /// The commands read from every connection's socket and not yet run: what clients that
    /// send faster than their commands run make the server hold.
    public var queuedCommands: Int { queuedGauge.value }

    /// Counts a command by operation and outcome (`ok` or an error name).
    package func command(_ op: String, outcome: String) {
        let key = op + "\u{0}" + outcome
        let counter = commandCounters.withLock { counters in
            if let existing = counters[key] { return existing }
            let made = Metrics.Counter(label: "greenroom_commands_total", dimensions: [("op", op), ("outcome", outcome)], factory: factory)
            counters[key] = made
            return made
        }
        counter.increment()
    }

    /// Counts events written to clients.
    package func eventsDelivered(_ count: Int) { if count > 0 { delivered.increment(by: count) } }
    /// Counts a client disconnected because its outbound queue overflowed.
    package func outboundDrop() { drops.increment() }
    /// Counts a connection no longer read because its commands wait (``CommandQueue``).
    package func readsPaused() { pauses.increment() }

    /// Counts a connection closed for not sending its first request's headers in time.
    package func headerTimedOut() { headerTimeouts.increment() }

    /// Counts a change refused because the writer's queue stayed full.
    package func writerOverloaded() { overloads.increment() }
    /// Counts events appended to logs.
    package func eventsAppended(_ count: Int) { if count > 0 { appended.increment(by: count) } }

    /// Records the gauges read from their owners when the metrics are read (a scrape, the
    /// console's dashboard), instead of on every change: the writer's queue, the media rooms
    /// with members, the livestreams running.
    package func sample(writerQueue queued: Int, mediaRooms rooms: Int, livestreams running: Int) {
        writerQueue.record(queued)
        mediaRooms.record(rooms)
        livestreams.record(running)
    }

    /// Records how long after `committed` (the event's `at`, on the node that wrote it) this
    /// node's event loop queued an event on its subscribers: once per event and loop, not
    /// per subscriber.
    package func eventQueued(committedAt committed: Date) {
        deliveryLatency.recordNanoseconds(Int64(max(0, Date().timeIntervalSince(committed)) * 1e9))
    }

    /// The metrics in the Prometheus text format.
    public func exposition() -> String { registry.emitToString() }
}

/// A gauge of a count changed by deltas from many threads: the count is kept in an atomic
/// (a Prometheus gauge can only be set) and the gauge set to each new value.
package final class CountingGauge: Sendable {
    private let gauge: Metrics.Gauge
    private let count = Atomic<Int>(0)

    package init(label: String, factory: PrometheusMetricsFactory) {
        gauge = Metrics.Gauge(label: label, dimensions: [], factory: factory)
    }

    /// Adds `delta` (negative to take away) and sets the gauge.
    package func add(_ delta: Int) {
        guard delta != 0 else { return }
        gauge.record(count.add(delta, ordering: .relaxed).newValue)
    }

    /// The count now.
    package var value: Int { count.load(ordering: .relaxed) }
}
