/// The stream operations a client may send over the WebSocket (presence ones are in
/// `Presence.swift`).
///
/// Each is documented with its arguments and result in `docs/PROTOCOL.md`.
public enum StreamOperation {
    /// Subscribe to a stream, optionally resuming from a position: ``SubscribeArgs`` → ``SubscribeResult``.
    public static let subscribe = WireOperation<SubscribeArgs, SubscribeResult>("stream.subscribe")
    /// Stop receiving a stream: ``UnsubscribeArgs`` → ``EmptyResult``.
    public static let unsubscribe = WireOperation<UnsubscribeArgs, EmptyResult>("stream.unsubscribe")
    /// Publish an event to an app stream whose publication the token grants
    /// (`publish:app:NAME` or `publish:app:*`), stored durably before the reply:
    /// ``StreamPublishArgs`` → ``PublishResult``.
    public static let publish = WireOperation<StreamPublishArgs, PublishResult>("stream.publish")
}

/// The user operations a client may send over the WebSocket (the chat preferences are in
/// ``ChatOperation``).
public enum UserOperation {
    /// Read one user: ``UserGetArgs`` → ``User``.
    public static let get = WireOperation<UserGetArgs, User>("user.get")
    /// List users in cursor pages: ``UserListArgs`` → ``Page`` of ``User``.
    public static let list = WireOperation<UserListArgs, Page<User>>("user.list")
    /// Read the connected user: no arguments → ``User``.
    public static let me = WireOperation<EmptyResult, User>("user.me")
    /// Replace the connected user's nickname, profile URL and extra data: ``UserUpdateArgs`` → ``User``.
    public static let update = WireOperation<UserUpdateArgs, User>("user.update")
    /// Set and unset fields of the connected user: ``UserPartialUpdateArgs`` → ``User``.
    public static let partialUpdate = WireOperation<UserPartialUpdateArgs, User>("user.partialUpdate")
}

/// Arguments of `stream.subscribe`.
public struct SubscribeArgs: Codable, Sendable, Hashable {
    /// The stream to subscribe to.
    public var stream: String
    /// The last position the client saw; events after it are replayed when the log still holds them.
    public var since: StreamPosition?

    /// Makes the arguments.
    public init(stream: String, since: StreamPosition? = nil) {
        self.stream = stream
        self.since = since
    }
}

/// Result of `stream.subscribe`.
public struct SubscribeResult: Codable, Sendable, Hashable {
    /// The stream's current epoch.
    public var epoch: String
    /// The stream's last offset when the subscription started; live events follow it.
    public var offset: UInt64
    /// Whether every event after `since` is delivered (replayed, then live). `false` when
    /// the log no longer holds the gap or the epoch changed: reload the state the stream
    /// describes. Always `true` when no `since` was given.
    public var recovered: Bool
    /// How many events are replayed before live ones.
    public var replayed: Int

    /// Makes the result.
    public init(epoch: String, offset: UInt64, recovered: Bool, replayed: Int) {
        self.epoch = epoch
        self.offset = offset
        self.recovered = recovered
        self.replayed = replayed
    }
}

/// Arguments of `stream.unsubscribe`.
public struct UnsubscribeArgs: Codable, Sendable, Hashable {
    /// The stream to leave.
    public var stream: String

    /// Makes the arguments.
    public init(stream: String) { self.stream = stream }
}

/// An event to publish to a stream: the arguments of `stream.publish` (a client, to an
/// `app:NAME` stream its token grants publication of) and one event of `POST /v1/events`
/// (the app's backend, to `user:ID` and `app:NAME` streams).
public struct StreamPublishArgs: Codable, Sendable, Hashable {
    /// Its stream.
    public var stream: String
    /// The event type, 1–64 characters; defaults to `app.event`.
    public var type: String?
    /// The event's data.
    public var data: RawJSON
    /// A key that makes a retried publication store one event, not two.
    public var idempotencyKey: String?

    /// Makes the arguments.
    public init(stream: String, type: String? = nil, data: RawJSON, idempotencyKey: String? = nil) {
        self.stream = stream
        self.type = type
        self.data = data
        self.idempotencyKey = idempotencyKey
    }
}

/// One stored publication: the result of `stream.publish` and one result of `POST /v1/events`.
public struct PublishResult: Codable, Sendable, Hashable {
    /// The event (the earlier one, for a repeated idempotency key).
    public var event: StreamEvent
    /// Whether its idempotency key matched an earlier event, so nothing new was stored.
    public var duplicate: Bool

    /// Makes the result.
    public init(event: StreamEvent, duplicate: Bool) {
        self.event = event
        self.duplicate = duplicate
    }
}

/// The body of `POST /v1/events`: events for the app's streams, stored in one commit.
public struct BatchPublishArgs: Codable, Sendable, Hashable {
    /// One event of a batch, to a `user:ID` or `app:NAME` stream.
    public typealias Item = StreamPublishArgs

    /// The events, 1–500, appended in this order.
    public var events: [Item]

    /// Makes the body.
    public init(events: [Item]) { self.events = events }
}

/// The answer to `POST /v1/events`: each event as stored, in the request's order.
public struct BatchPublishResult: Codable, Sendable, Hashable {
    /// One stored event.
    public typealias Item = PublishResult

    /// The events, in the request's order.
    public var results: [Item]

    /// Makes the answer.
    public init(results: [Item]) { self.results = results }
}

/// The body of the app's publication to one stream (REST `POST /v1/streams/{stream}/events`).
public struct PublishArgs: Codable, Sendable, Hashable {
    /// The event type, 1–64 characters; defaults to `app.event`.
    public var type: String?
    /// The event's data.
    public var data: RawJSON
    /// A key that makes a retried publication store one event, not two.
    public var idempotencyKey: String?

    /// Makes the arguments.
    public init(type: String? = nil, data: RawJSON, idempotencyKey: String? = nil) {
        self.type = type
        self.data = data
        self.idempotencyKey = idempotencyKey
    }
}

/// A page of a cursor-paginated list.
public struct Page<Item: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    /// The items of this page.
    public var items: [Item]
    /// The cursor of the next page; `nil` on the last page.
    public var next: String?

    /// Makes a page.
    public init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }
}
