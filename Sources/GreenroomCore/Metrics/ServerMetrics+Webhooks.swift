import Metrics
import Prometheus

/// The webhook dispatcher's metrics (`greenroom_webhook_*`).
package final class WebhookMetrics: Sendable {
    private let deliveries: Metrics.Counter
    private let failures: Metrics.Counter
    private let retries: Metrics.Counter
    private let parked: Metrics.Counter
    private let queueAge: Metrics.Gauge
    private let queueLength: Metrics.Gauge

    package init(factory: PrometheusMetricsFactory) {
        deliveries = Metrics.Counter(label: "greenroom_webhook_deliveries_total", dimensions: [], factory: factory)
        failures = Metrics.Counter(label: "greenroom_webhook_failures_total", dimensions: [], factory: factory)
        retries = Metrics.Counter(label: "greenroom_webhook_retries_total", dimensions: [], factory: factory)
        parked = Metrics.Counter(label: "greenroom_webhook_parked_total", dimensions: [], factory: factory)
        queueAge = Metrics.Gauge(label: "greenroom_webhook_queue_age_seconds", dimensions: [], factory: factory)
        queueLength = Metrics.Gauge(label: "greenroom_webhook_queue_length", dimensions: [], factory: factory)
    }

    /// Counts an attempt: delivered (a 2xx) or failed; a retry when it was not the first.
    package func attempt(succeeded: Bool, number: Int) {
        (succeeded ? deliveries : failures).increment()
        if number > 1 { retries.increment() }
    }

    /// Counts a delivery parked after its last attempt.
    package func parkedOne() { parked.increment() }

    /// Records the queue as the last scan saw it: its length (up to the scan's limit) and
    /// the age of its oldest event.
    package func queue(length: Int, oldestAge: Double) {
        queueLength.record(length)
        queueAge.record(oldestAge)
    }
}

/// Push notifications' metrics (`greenroom_push_*`).
package final class PushMetrics: Sendable {
    private let sentCounter: Metrics.Counter
    private let failures: Metrics.Counter
    private let removed: Metrics.Counter
    private let queued: Metrics.Counter

    package init(factory: PrometheusMetricsFactory) {
        sentCounter = Metrics.Counter(label: "greenroom_push_sent_total", dimensions: [], factory: factory)
        failures = Metrics.Counter(label: "greenroom_push_failures_total", dimensions: [], factory: factory)
        removed = Metrics.Counter(label: "greenroom_push_devices_removed_total", dimensions: [], factory: factory)
        queued = Metrics.Counter(label: "greenroom_push_queued_total", dimensions: [], factory: factory)
    }

    /// Counts a push APNs accepted.
    package func sent() { sentCounter.increment() }
    /// Counts a push that failed (to be retried).
    package func failed() { failures.increment() }
    /// Counts a device removed because APNs no longer knows it.
    package func unregistered() { removed.increment() }
    /// Counts the device pushes a message or invitation was fanned out to.
    package func fannedOut(_ count: Int) { if count > 0 { queued.increment(by: count) } }
}
