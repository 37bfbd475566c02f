import Foundation
import GreenroomProtocol

/// A registered endpoint, with its signing secret (never returned after creation).
struct WebhookEndpointRecord: StoredRecord {
    static let recordKind = "webhook"
    var id: String
    var url: String
    var events: [String]
    var secret: String
    var createdAt: Date

    var recordId: String { id }
    var recordSort: Int64 { Int64((createdAt.timeIntervalSince1970 * 1000).rounded()) }

    /// The endpoint as the backend sees it; with the secret only when just created.
    func endpoint(withSecret: Bool) -> WebhookEndpoint {
        WebhookEndpoint(id: id, url: url, events: events, secret: withSecret ? secret : nil, createdAt: createdAt)
    }

    /// Whether events of `type` go to it.
    func receives(_ type: String) -> Bool { WebhookEndpoint.patterns(events, match: type) }
}

/// A delivery that failed every attempt, kept until the backend replays or its endpoint goes.
struct WebhookParkedRecord: StoredRecord {
    static let recordKind = "webhook.parked"
    var delivery: WebhookDelivery
    /// The stored event, to queue again as it was.
    var event: StreamEvent

    var recordScope: String { delivery.endpointId }
    var recordId: String { OutboxJobRecord.id(lane: event.stream, offset: event.offset) }
    var recordSort: Int64 { Int64((delivery.parkedAt.timeIntervalSince1970 * 1_000_000).rounded()) }
}
