import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import ServiceLifecycle

/// Webhooks: the app's backend registers endpoints (API key), and every node delivers the
/// events they want from the outbox the writer fills in each event's own transaction.
package struct WebhooksCapability: Capability {
    package let service: WebhookService

    package init(_ core: CapabilityContext) {
        service = WebhookService(storage: core.storage, events: core.events, settings: core.configuration.webhooks)
        core.deliveries.add(WebhookDestinations(service: service, metrics: core.metrics.webhooks, http: core.outbound.webhooks))
    }

}
