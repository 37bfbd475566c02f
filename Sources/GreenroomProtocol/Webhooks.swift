import Foundation

/// An endpoint of the app's backend that Greenroom POSTs matching events to, signed.
///
/// Registered over REST with the server API key (`POST /v1/webhooks`), or by configuration
/// (`GREENROOM_WEBHOOK_URL`, whose id is `config`).
public struct WebhookEndpoint: Codable, Sendable, Hashable, Identifiable {
    /// The endpoint's id.
    public var id: String
    /// Where events are POSTed (`http` or `https`).
    public var url: String
    /// The event types it receives: a type (`message.new`), a family (`message.*`), or `*`.
    public var events: [String]
    /// The signing secret: returned once, when the endpoint is created; `nil` afterwards.
    public var secret: String?
    /// When it was registered.
    public var createdAt: Date

    /// Makes an endpoint.
    public init(id: String, url: String, events: [String], secret: String?, createdAt: Date) {
        self.id = id
        self.url = url
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
    }

    /// Whether events of `type` go to this endpoint.
    public func receives(_ type: String) -> Bool { Self.patterns(events, match: type) }

    /// Whether any of `patterns` matches `type`.
    public static func patterns(_ patterns: [String], match type: String) -> Bool {
        patterns.contains { pattern($0, matches: type) }
    }

    /// Whether `type` matches `pattern`: `*`, `family.*` (the family and everything in it),
    /// or the type itself.
    public static func pattern(_ pattern: String, matches type: String) -> Bool {
        if pattern == "*" { return true }
        if pattern.hasSuffix(".*") { return type.hasPrefix(pattern.dropLast()) }
        return pattern == type
    }

    /// Whether `pattern` is one an endpoint may list: `*`, or 1–64 characters of letters,
    /// digits, `._-`, with `*` only as a last `.*`.
    public static func isValidPattern(_ pattern: String) -> Bool {
        if pattern == "*" { return true }
        let body = pattern.hasSuffix(".*") ? String(pattern.dropLast(2)) : pattern
        guard (1...64).contains(pattern.count), !body.isEmpty else { return false }
        return body.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "._-".unicodeScalars.contains($0) }
    }
}

/// The body of `POST /v1/webhooks`.
public struct WebhookCreateArgs: Codable, Sendable, Hashable {
    /// Where events are POSTed.
    public var url: String
    /// The event types wanted (``WebhookEndpoint/events``); every type when `nil`.
    public var events: [String]?

    /// Makes the arguments.
    public init(url: String, events: [String]? = nil) {
        self.url = url
        self.events = events
    }
}

/// `GET /v1/webhooks`: every endpoint, oldest first, without secrets.
public struct WebhookEndpointList: Codable, Sendable, Hashable {
    /// The endpoints.
    public var endpoints: [WebhookEndpoint]

    /// Makes the list.
    public init(endpoints: [WebhookEndpoint]) { self.endpoints = endpoints }
}

/// What Greenroom POSTs to an endpoint: one stored event, with an id that stays the same
/// across retries and nodes (a receiver that has seen the id has seen the event).
public struct WebhookEvent: Codable, Sendable, Hashable {
    /// The delivery's id: the stream, its epoch and the event's offset.
    public var id: String
    /// The event type, e.g. `message.new`.
    public var type: String
    /// The stream it was written to, e.g. `channel:general`.
    public var stream: String
    /// Its offset in the stream: a receiver sees a stream's events in this order.
    public var offset: UInt64
    /// The stream's epoch.
    public var epoch: String
    /// When the event was written.
    public var at: Date
    /// The event's data, as subscribers get it.
    public var data: RawJSON

    /// The webhook form of a stored event.
    public init(_ event: StreamEvent) {
        id = WebhookEvent.id(of: event)
        type = event.type
        stream = event.stream
        offset = event.offset
        epoch = event.epoch
        at = event.at
        data = event.data
    }

    /// The delivery id of an event: `stream/epoch/offset`.
    public static func id(of event: StreamEvent) -> String { "\(event.stream)/\(event.epoch)/\(event.offset)" }
}

/// A delivery that failed every attempt and was parked: the backend lists it and replays it.
public struct WebhookDelivery: Codable, Sendable, Hashable, Identifiable {
    /// The delivery's id (``WebhookEvent/id``).
    public var id: String
    /// The endpoint it was for.
    public var endpointId: String
    /// The event.
    public var event: WebhookEvent
    /// How many attempts were made.
    public var attempts: Int
    /// What the last attempt got: a status code, a timeout, a connection error.
    public var lastError: String?
    /// When it was parked.
    public var parkedAt: Date

    /// Makes a parked delivery.
    public init(id: String, endpointId: String, event: WebhookEvent, attempts: Int, lastError: String?, parkedAt: Date) {
        self.id = id
        self.endpointId = endpointId
        self.event = event
        self.attempts = attempts
        self.lastError = lastError
        self.parkedAt = parkedAt
    }
}

/// `GET /v1/webhooks/{id}/parked`: a page of parked deliveries, oldest first.
public struct WebhookDeliveryPage: Codable, Sendable, Hashable {
    /// This page's deliveries.
    public var items: [WebhookDelivery]
    /// The cursor of the next page; `nil` on the last.
    public var next: String?

    /// Makes a page.
    public init(items: [WebhookDelivery], next: String?) {
        self.items = items
        self.next = next
    }
}

/// The body of `POST /v1/webhooks/{id}/replay` (none: every parked delivery, up to 500).
public struct WebhookReplayArgs: Codable, Sendable, Hashable {
    /// The one parked delivery to queue again (``WebhookDelivery/id``).
    public var deliveryId: String?

    /// Makes the arguments.
    public init(deliveryId: String? = nil) { self.deliveryId = deliveryId }
}

/// `POST /v1/webhooks/{id}/replay`: how many parked deliveries went back in the queue.
public struct WebhookReplayResult: Codable, Sendable, Hashable {
    /// How many were queued again.
    public var replayed: Int

    /// Makes the result.
    public init(replayed: Int) { self.replayed = replayed }
}

/// The headers a delivery carries, and what the signature covers.
///
/// `Greenroom-Signature: t=<unix seconds>,v1=<hex>`, where the hex is the HMAC-SHA256, keyed
/// with the endpoint's secret, of `"<t>.<body>"`. A receiver recomputes it, compares in
/// constant time, refuses a `t` far from its clock (replays), and keeps the ids it has
/// handled (``WebhookEvent/id``): a delivery may come more than once, always with its id.
public enum WebhookHeaders {
    /// The signature header.
    public static let signature = "Greenroom-Signature"
    /// The delivery id header (the body's `id`).
    public static let id = "Greenroom-Webhook-Id"
    /// The attempt number (1 for the first).
    public static let attempt = "Greenroom-Webhook-Attempt"

    /// The bytes the signature is computed over.
    public static func signedPayload(timestamp: Int64, body: Data) -> Data {
        Data("\(timestamp).".utf8) + body
    }

    /// The parts of a signature header: its timestamp and `v1` signatures (hex).
    public static func parse(_ header: String) -> (timestamp: Int64, signatures: [String])? {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            if pair[0] == "t" { timestamp = Int64(pair[1]) } else if pair[0] == "v1" { signatures.append(pair[1]) }
        }
        guard let timestamp, !signatures.isEmpty else { return nil }
        return (timestamp, signatures)
    }
}
