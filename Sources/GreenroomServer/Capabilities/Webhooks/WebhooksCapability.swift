import Foundation
import GreenroomProtocol
import ServiceLifecycle

/// Webhooks: the app's backend registers endpoints (API key), and every node delivers the
/// events they want from the outbox the writer fills in each event's own transaction.
struct WebhooksCapability: Capability {
    let service: WebhookService

    init(_ core: CoreServices) {
        service = WebhookService(storage: core.storage, events: core.events, settings: core.configuration.webhooks)
        core.deliveries.add(WebhookDestinations(service: service, metrics: core.metrics.webhooks, http: core.outbound.webhooks))
    }

}
