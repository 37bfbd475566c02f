import GreenroomProtocol
import NIOCore

/// The local fan-out: which connections of this node subscribe to which stream.
///
/// An event is encoded and framed once, and the same bytes go to every subscriber.
final class EventHub: Sendable {
    private let subscribers = Locked<[String: [ObjectIdentifier: ClientConnection]]>([:])

    func add(_ connection: ClientConnection, to stream: String) {
        subscribers.withLock { $0[stream, default: [:]][ObjectIdentifier(connection)] = connection }
    }

    func remove(_ connection: ClientConnection, from stream: String) {
        subscribers.withLock { all in
            all[stream]?[ObjectIdentifier(connection)] = nil
            if all[stream]?.isEmpty == true { all[stream] = nil }
        }
    }

    func subscriberCount(_ stream: String) -> Int {
        subscribers.withLock { $0[stream]?.count ?? 0 }
    }

    /// Delivers `event` to every local subscriber of its stream (of its audience, when it
    /// names one), then ends the subscriptions of those it revokes.
    func publish(_ event: StreamEvent, metrics: ServerMetrics) {
        var targets = subscribers.withLock { all in all[event.stream].map { Array($0.values) } ?? [] }
        if let audience = event.audience { targets.removeAll { !audience.contains($0.identity.userId) } }
        guard !targets.isEmpty, let frame = try? Self.encode(event) else { return }
        var toDrain: [ClientConnection] = []
        toDrain.reserveCapacity(targets.count)
        for connection in targets where connection.deliver(stream: event.stream, offset: event.offset, frame: frame) {
            toDrain.append(connection)
        }
        ClientConnection.scheduleDrains(toDrain)
        metrics.eventsDelivered(targets.count)
        if let revoked = event.revokes {
            for connection in targets where revoked.applies(to: connection.identity.userId) {
                remove(connection, from: event.stream)
                connection.endSubscription(event.stream)
            }
        }
    }

    /// The WebSocket frame of `event`, made once for all its subscribers.
    static func encode(_ event: StreamEvent) throws -> ByteBuffer {
        WireHandler.textFrame(try WireCoding.encode(EventFrame(event: event)))
    }
}

extension StreamEvent {
    /// Whether `userId` may receive this event.
    func isVisible(to userId: String) -> Bool {
        audience?.contains(userId) ?? true
    }
}
