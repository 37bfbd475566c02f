import GreenroomProtocol
import NIOCore
import Synchronization

/// The local fan-out: which connections of this node subscribe to which stream.
///
/// An event is encoded once and the same bytes go to every subscriber.
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
        let targets = subscribers.withLock { all in all[event.stream].map { Array($0.values) } ?? [] }
        guard !targets.isEmpty, let frame = try? Self.encode(event) else { return }
        for connection in targets {
            connection.deliver(stream: event.stream, offset: event.offset, frame: frame)
        }
        metrics.eventsDelivered(targets.count)
    }

    static func encode(_ event: StreamEvent) throws -> ByteBuffer {
        ByteBuffer(data: try WireCoding.encoder.encode(EventFrame(event: event)))
    }
}
