import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A registered endpoint, with its signing secret (never returned after creation).
package struct WebhookEndpointRecord: StoredRecord {
    package static let recordKind = "webhook"
    package var id: String
    package var url: String
    package var events: [String]
    package var secret: String
    package var createdAt: Date

    package var recordId: String { id }
    package var recordSort: Int64 { Int64((createdAt.timeIntervalSince1970 * 1000).rounded()) }

    /// The endpoint as the backend sees it; with the secret only when just created.
    package func endpoint(withSecret: Bool) -> WebhookEndpoint {
        WebhookEndpoint(id: id, url: url, events: events, secret: withSecret ? secret : nil, createdAt: createdAt)
    }

    /// Whether events of `type` go to it.
    package func receives(_ type: String) -> Bool { WebhookEndpoint.patterns(events, match: type) }
}

/// A delivery that failed every attempt, kept until the backend replays or its endpoint goes.
package struct WebhookParkedRecord: StoredRecord {
    package static let recordKind = "webhook.parked"
    package var delivery: WebhookDelivery
    /// The stored event, to queue again as it was.
    package var event: StreamEvent

    package var recordScope: String { delivery.endpointId }
    package var recordId: String { OutboxJobRecord.id(lane: event.stream, offset: event.offset) }
    package var recordSort: Int64 { Int64((delivery.parkedAt.timeIntervalSince1970 * 1_000_000).rounded()) }
}
