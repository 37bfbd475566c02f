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
    func receives(_ type: String) -> Bool {
        events.contains { WebhookEndpoint.pattern($0, matches: type) }
    }
}

/// A delivery still to make: written in the transaction that stores its event (the outbox),
/// removed in the one that records its success (or parks it).
///
/// Kept in the endpoint's scope with id `stream#offset` (offset zero-padded), so the
/// endpoint's jobs list grouped by stream and, within a stream, in the events' order: a
/// stream's first job is the only one of the stream that is attempted.
struct WebhookJobRecord: StoredRecord {
    static let recordKind = "webhook.job"
    var endpointId: String
    var event: StreamEvent
    /// Attempts made so far.
    var attempts: Int = 0
    /// Not attempted before this.
    var dueAt: Date
    /// A node delivering it holds it until this (a dead node's hold runs out).
    var heldUntil: Date?
    /// What the last attempt got.
    var lastError: String?

    var recordScope: String { endpointId }
    var recordId: String { Self.id(stream: event.stream, offset: event.offset) }

    /// The job id of an event: its stream, then its offset zero-padded to sort as numbers.
    static func id(stream: String, offset: UInt64) -> String {
        let digits = String(offset)
        return stream + "#" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits
    }

    /// The lowest job id of `stream` sorts just after this.
    static func before(stream: String) -> String { stream + "#" }

    /// The stream of a job id.
    static func stream(ofId id: String) -> String {
        guard let hash = id.lastIndex(of: "#") else { return id }
        return String(id[..<hash])
    }
}

/// A delivery that failed every attempt, kept until the backend replays or its endpoint goes.
struct WebhookParkedRecord: StoredRecord {
    static let recordKind = "webhook.parked"
    var delivery: WebhookDelivery
    /// The stored event, to queue again as it was.
    var event: StreamEvent

    var recordScope: String { delivery.endpointId }
    var recordId: String { WebhookJobRecord.id(stream: event.stream, offset: event.offset) }
    var recordSort: Int64 { Int64((delivery.parkedAt.timeIntervalSince1970 * 1_000_000).rounded()) }
}
