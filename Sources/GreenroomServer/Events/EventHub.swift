import GreenroomProtocol
import NIOCore

/// The local fan-out: which connections of this node subscribe to which stream.
///
/// An event is encoded and framed once, and the same bytes go to every subscriber. A
/// stream's subscribers are kept by event loop: the hub gives each loop that has
/// subscribers of an event's stream the event (``publish(_:metrics:then:)``), and the loop's
/// ``LoopDrainer`` queues it on them (``deliver(_:frame:on:metrics:)``), so the node's writer
/// does a lookup per loop, not per subscriber.
final class EventHub: Sendable {
    /// A stream's subscribers on one event loop.
    private struct LoopSubscribers {
        let drainer: LoopDrainer
        var connections: [ObjectIdentifier: ClientConnection] = [:]
    }

    /// Stream → the drainer of each loop that has subscribers → those subscribers.
    private let subscribers = Locked<[String: [ObjectIdentifier: LoopSubscribers]]>([:])

    /// Event type → what this node does with every stored event of that type, whether or
    /// not a connection here follows its stream (a revocation closes connections on every
    /// node).
    private let watchers = Locked<[String: [@Sendable (StreamEvent) -> Void]]>([:])

    /// Calls `handler` with every event of `type` the node's broker carries.
    func watch(type: String, _ handler: @escaping @Sendable (StreamEvent) -> Void) {
        watchers.withLock { $0[type, default: []].append(handler) }
    }

    /// Hands `events` to the watchers of their types; the broker calls it for every event
    /// it carries to this node.
    func observe(_ events: [StreamEvent]) {
        let watched = watchers.withLock { $0 }
        guard !watched.isEmpty else { return }
        for event in events {
            for handler in watched[event.type] ?? [] { handler(event) }
        }
    }

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

    /// Hands `events` (stored, in offset order per stream) to the event loops that have
    /// subscribers of their streams; `handedOff` runs once each of those loops has queued
    /// them on its subscribers (at once when none has any).
    func publish(_ events: [StreamEvent], metrics: ServerMetrics, then handedOff: (@Sendable () -> Void)? = nil) {
        let loops = subscribers.withLock { all -> [ObjectIdentifier: (drainer: LoopDrainer, events: [Int])] in
            var loops: [ObjectIdentifier: (drainer: LoopDrainer, events: [Int])] = [:]
            for (index, event) in events.enumerated() {
                for (key, group) in all[event.stream] ?? [:] {
                    loops[key, default: (group.drainer, [])].events.append(index)
                }
            }
            return loops
        }
        var frames: [Int: ByteBuffer] = [:]
        for index in loops.values.flatMap(\.events) where frames[index] == nil {
            frames[index] = try? Self.encode(events[index])
        }
        let countdown = loops.isEmpty ? nil : handedOff.map { HandOffCountdown(loops: loops.count, then: $0) }
        for (drainer, indices) in loops.values {
            let handOff = LoopDrainer.HandOff(events: indices.compactMap { index in frames[index].map { (events[index], $0) } },
                                              hub: self, metrics: metrics, countdown: countdown)
            drainer.handOff(handOff)
        }
        if countdown == nil { handedOff?() }
    }

    /// On `drainer`'s loop: queues `event` on that loop's subscribers of its stream (of its
    /// audience, when it names one), then ends the subscriptions of those it revokes.
    /// - Returns: the connections that need a drain.
    func deliver(_ event: StreamEvent, frame: ByteBuffer, on drainer: LoopDrainer, metrics: ServerMetrics) -> [ClientConnection] {
        let connections = subscribers.withLock { all in
            all[event.stream]?[ObjectIdentifier(drainer)].map { Array($0.connections.values) } ?? []
        }
        var toDrain: [ClientConnection] = []
        var revoked: [ClientConnection] = []
        var delivered = 0
        for connection in connections where event.isVisible(to: connection.identity.userId) {
            delivered += 1
            if connection.deliver(stream: event.stream, offset: event.offset, frame: frame) { toDrain.append(connection) }
            if event.revokes?.applies(to: connection.identity.userId) == true { revoked.append(connection) }
        }
        metrics.eventsDelivered(delivered)
        for connection in revoked {
            remove(connection, from: event.stream)
            connection.endSubscription(event.stream)
        }
        return toDrain
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
