import GreenroomProtocol
import NIOCore
import Synchronization

/// The local fan-out: which connections of this node subscribe to which stream.
///
/// An event is encoded and framed once, and the same bytes go to every subscriber.
final class EventHub: Sendable {
    private let subscribers = Mutex<[String: [ObjectIdentifier: ClientConnection]]>([:])

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

    /// Delivers `event` to every local subscriber of its stream.
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
        if let revoked = ReadRevocation.of(event) {
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

/// Who loses the right to read a stream with an event: after it is delivered to them, their
/// subscriptions end (a member who left stops receiving the channel; a deleted channel's
/// stream ends for everyone). A later resubscription is refused.
enum ReadRevocation {
    case users(Set<String>)
    case everyone

    static func of(_ event: StreamEvent) -> ReadRevocation? {
        switch event.type {
        case ChatEventType.memberLeft:
            return event.data["member"]?["userId"]?.stringValue.map { .users([$0]) }
        case ChatEventType.channelDeleted where event.stream.hasPrefix("channel:"):
            return .everyone
        default:
            return nil
        }
    }

    func applies(to userId: String) -> Bool {
        switch self {
        case .users(let ids): ids.contains(userId)
        case .everyone: true
        }
    }
}

extension StreamEvent {
    /// The users an event is for, when it is not for every reader of its stream (a
    /// `sendOnly` pub/sub message): its data's `audience` array.
    var audience: Set<String>? {
        data["audience"]?.stringArrayValue.map(Set.init)
    }

    /// Whether `userId` may receive this event.
    func isVisible(to userId: String) -> Bool {
        audience?.contains(userId) ?? true
    }
}
