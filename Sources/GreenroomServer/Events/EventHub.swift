import GreenroomProtocol
import NIOCore

/// The local fan-out: which connections of this node subscribe to which stream.
///
/// An event is encoded and framed once, and the same bytes go to every subscriber. A
/// stream's subscribers are kept by event loop, so that handing an event to them queues
/// each loop's connections on its ``LoopDrainer`` at once, with no grouping per event.
///
/// The hand-off runs on the node's writer, before the batch is acknowledged, so it is kept
/// to a lookup and a queue append per connection: in `bench room --participants 10000`,
/// ``publish(_:metrics:)`` held the writer ~14 ms an event when it grouped the connections
/// by loop for each event, ~12 ms now (`perf record`, BENCHMARKS.md).
final class EventHub: Sendable {
    /// A stream's subscribers on one event loop.
    private struct LoopSubscribers {
        let drainer: LoopDrainer
        var connections: [ObjectIdentifier: ClientConnection] = [:]
    }

    /// Stream → the drainer of each loop that has subscribers → those subscribers.
    private let subscribers = Locked<[String: [ObjectIdentifier: LoopSubscribers]]>([:])

    func add(_ connection: ClientConnection, to stream: String) {
        let drainer = connection.drainer
        subscribers.withLock { all in
            all[stream, default: [:]][ObjectIdentifier(drainer), default: LoopSubscribers(drainer: drainer)]
                .connections[ObjectIdentifier(connection)] = connection
        }
    }

    func remove(_ connection: ClientConnection, from stream: String) {
        let loop = ObjectIdentifier(connection.drainer)
        subscribers.withLock { all in
            guard var loops = all[stream], var group = loops[loop] else { return }
            all[stream] = nil  // uniquely referenced below: no copy of the loop's dictionary
            loops[loop] = nil
            group.connections[ObjectIdentifier(connection)] = nil
            if !group.connections.isEmpty { loops[loop] = group }
            if !loops.isEmpty { all[stream] = loops }
        }
    }

    func subscriberCount(_ stream: String) -> Int {
        subscribers.withLock { all in all[stream]?.values.reduce(0) { $0 + $1.connections.count } ?? 0 }
    }

    /// Delivers `event` to every local subscriber of its stream (of its audience, when it
    /// names one), then ends the subscriptions of those it revokes.
    func publish(_ event: StreamEvent, metrics: ServerMetrics) {
        let loops = subscribers.withLock { all in
            all[event.stream].map { $0.values.map { ($0.drainer, Array($0.connections.values)) } } ?? []
        }
        guard !loops.isEmpty, let frame = try? Self.encode(event) else { return }
        var delivered = 0
        for (drainer, connections) in loops {
            var toDrain: [ClientConnection] = []
            toDrain.reserveCapacity(connections.count)
            for connection in connections where event.isVisible(to: connection.identity.userId) {
                delivered += 1
                if connection.deliver(stream: event.stream, offset: event.offset, frame: frame) { toDrain.append(connection) }
            }
            drainer.add(toDrain)
        }
        metrics.eventsDelivered(delivered)
        if let revoked = event.revokes {
            for (_, connections) in loops {
                for connection in connections where event.isVisible(to: connection.identity.userId)
                    && revoked.applies(to: connection.identity.userId) {
                    remove(connection, from: event.stream)
                    connection.endSubscription(event.stream)
                }
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
