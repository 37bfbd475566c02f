import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The stored webhook endpoints this node routes events by: setting them sets their routes
/// on the outbox (the event types each wants).
package final class WebhookEndpointCache: Sendable {
    /// The owner name the routes are set under.
    package static let routeOwner = "webhooks"
    private let records = Locked<[WebhookEndpointRecord]>([])
    private let outbox: Outbox

    package init(outbox: Outbox) {
        self.outbox = outbox
    }

    /// Replaces the endpoints and their routes.
    package func set(_ endpoints: [WebhookEndpointRecord]) {
        records.withLock { $0 = endpoints }
        outbox.setRoutes(endpoints.map { OutboxRoute(destinationId: $0.id, wants: $0.receives) }, of: Self.routeOwner)
    }

    /// The endpoints now.
    package var current: [WebhookEndpointRecord] { records.withLock { $0 } }
}

/// The app's webhook endpoints as the outbox's dispatcher sees them: one signed POST per
/// job; a job that failed its last attempt is parked for the backend to list and replay.
package struct WebhookDestinations: OutboxDestinations {
    package let service: WebhookService
    package let metrics: WebhookMetrics
    /// The server's client for webhooks.
    package let http: any OutboundHTTP

    /// Stores (or updates, or removes) the configured endpoint, and loads them all.
    package func prepare() async throws {
        try await service.applyConfiguration()
    }

    package func refresh() async throws {
        try await service.reload()
    }

    package var current: [any OutboxDestination] {
        let settings = service.settings
        return service.endpoints.current.map {
            WebhookDestination(endpoint: $0, timeout: settings.timeout, allowPrivateAddresses: settings.allowPrivateAddresses, metrics: metrics, http: http)
        }
    }

    package func park(_ job: OutboxJobRecord, failure: String, in transaction: any StorageTransaction) async throws {
        let delivery = WebhookDelivery(id: WebhookEvent.id(of: job.event), endpointId: job.destinationId, event: WebhookEvent(job.event),
                                       attempts: job.attempts, lastError: failure, parkedAt: Date())
        try await transaction.save(WebhookParkedRecord(delivery: delivery, event: job.event))
    }

    package func parked(_ job: OutboxJobRecord) { metrics.parkedOne() }

    package func scanned(length: Int, oldestAge: TimeInterval) { metrics.queue(length: length, oldestAge: oldestAge) }

    package func shutdown() async { await http.shutdown() }
}
