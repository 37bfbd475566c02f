import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The app's webhook endpoints and their parked deliveries, kept as records.
package struct WebhookService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let settings: WebhookSettings
    /// The endpoints events are routed by.
    package let endpoints: WebhookEndpointCache
    /// The most endpoints an app registers.
    package static let maxEndpoints = 50
    /// The id of the endpoint given by configuration.
    package static let configuredId = "config"

    package init(storage: any GreenroomStorage, events: EventLog, settings: WebhookSettings) {
        self.storage = storage
        self.events = events
        self.settings = settings
        endpoints = WebhookEndpointCache(outbox: events.outbox)
    }

    private var outbox: Outbox { events.outbox }

    /// Reloads the endpoints events are routed by.
    package func reload() async throws {
        endpoints.set(try await storage.list(WebhookEndpointRecord.self, RecordQuery(kind: WebhookEndpointRecord.recordKind, limit: 1_000)))
    }

    /// Stores (or replaces, or removes) the endpoint the configuration names.
    package func applyConfiguration() async throws {
        if let url = settings.url, let secret = settings.secret {
            let record = WebhookEndpointRecord(id: Self.configuredId, url: url, events: settings.events, secret: secret, createdAt: Date())
            try await events.transact { transaction in
                if var existing = try await transaction.load(WebhookEndpointRecord.self, id: Self.configuredId) {
                    guard existing.url != url || existing.secret != secret || existing.events != record.events else { return }
                    (existing.url, existing.secret, existing.events) = (url, secret, record.events)
                    try await transaction.save(existing)
                } else {
                    try await transaction.save(record)
                }
            }
        } else if try await storage.load(WebhookEndpointRecord.self, id: Self.configuredId) != nil {
            try await delete(Self.configuredId)
        }
        try await reload()
    }

    /// Registers an endpoint; its secret is returned this once.
    package func create(_ args: WebhookCreateArgs) async throws -> WebhookEndpoint {
        try settings.checkURL(args.url)
        let patterns = args.events ?? ["*"]
        guard (1...50).contains(patterns.count), patterns.allSatisfy(WebhookEndpoint.isValidPattern) else {
            throw GreenroomError(.invalidParameterValue, "events must hold 1–50 event types, families (message.*) or *")
        }
        let record = WebhookEndpointRecord(id: "wh_" + RandomHex.string(bytes: 8), url: args.url, events: patterns,
                                           secret: "whsec_" + RandomHex.string(bytes: 24), createdAt: Date())
        try await events.transact { transaction in
            let count = try await transaction.countRecords(RecordQuery(kind: WebhookEndpointRecord.recordKind))
            guard count < Self.maxEndpoints else {
                throw GreenroomError(.rateLimited, "an app registers at most \(Self.maxEndpoints) webhook endpoints")
            }
            try await transaction.save(record)
        }
        try await reload()
        outbox.nudge()
        return record.endpoint(withSecret: true)
    }

    /// Every endpoint, oldest first, without secrets.
    package func list() async throws -> WebhookEndpointList {
        let records = try await storage.list(WebhookEndpointRecord.self, RecordQuery(kind: WebhookEndpointRecord.recordKind, limit: 1_000))
        return WebhookEndpointList(endpoints: records.map { $0.endpoint(withSecret: false) })
    }

    /// One endpoint, without its secret.
    package func get(_ id: String) async throws -> WebhookEndpoint {
        guard let record = try await storage.load(WebhookEndpointRecord.self, id: id) else { throw Self.notFound(id) }
        return record.endpoint(withSecret: false)
    }

    /// Removes an endpoint with its queued and parked deliveries.
    package func delete(_ id: String) async throws {
        try await events.transact { transaction in
            guard try await transaction.remove(WebhookEndpointRecord.self, id: id) else { throw Self.notFound(id) }
            try await transaction.deleteRecords(kind: OutboxJobRecord.recordKind, scope: id)
            try await transaction.deleteRecords(kind: WebhookParkedRecord.recordKind, scope: id)
        }
        try await reload()
    }

    /// A page of an endpoint's parked deliveries, oldest first.
    package func parked(_ id: String, limit: Int, cursor: String?) async throws -> WebhookDeliveryPage {
        _ = try await get(id)
        var query = RecordQuery(kind: WebhookParkedRecord.recordKind, scope: id)
        query.after = try cursor.map(RecordCursor.decode)
        let page = try await storage.page(WebhookParkedRecord.self, query, limit: limit)
        return WebhookDeliveryPage(items: page.items.map(\.delivery), next: page.next)
    }

    /// Queues parked deliveries again, with their attempts counted afresh: one (`deliveryId`)
    /// or up to 500 of the oldest. Each is sent before its stream's later events.
    package func replay(_ id: String, deliveryId: String?) async throws -> WebhookReplayResult {
        let replayed = try await events.transact { transaction -> Int in
            guard try await transaction.load(WebhookEndpointRecord.self, id: id) != nil else { throw Self.notFound(id) }
            let parked: [WebhookParkedRecord]
            if let deliveryId {
                // A delivery id is `stream/epoch/offset`; neither a stream nor an epoch holds `/`.
                let parts = deliveryId.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 3, let offset = UInt64(parts[2]),
                      let one = try await transaction.load(WebhookParkedRecord.self, scope: id, id: OutboxJobRecord.id(lane: String(parts[0]), offset: offset)),
                      one.delivery.id == deliveryId else {
                    throw GreenroomError(.notFound, "no parked delivery \(deliveryId) for \(id)")
                }
                parked = [one]
            } else {
                parked = try await transaction.list(WebhookParkedRecord.self, RecordQuery(kind: WebhookParkedRecord.recordKind, scope: id, limit: 500))
            }
            for item in parked {
                try await transaction.remove(WebhookParkedRecord.self, scope: id, id: item.recordId)
                try await transaction.save(OutboxJobRecord(destinationId: id, event: item.event, dueAt: Date()))
            }
            return parked.count
        }
        outbox.nudge()
        return WebhookReplayResult(replayed: replayed)
    }

    private static func notFound(_ id: String) -> GreenroomError { GreenroomError(.notFound, "no webhook endpoint \(id)") }
}
