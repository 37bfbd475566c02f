import GreenroomProtocol
import NIOCore
import Tracing

/// The local fan-out: hands each stored event to the event loops of this node that have
/// subscribers of its stream.
///
/// An event is encoded and framed once, and the same bytes go to every subscriber. Each
/// event loop's subscribers are kept by that loop's ``LoopDrainer``, which the hub makes
/// (``drainer(for:)``) and which queues the events it is handed on them
/// (``publish(_:metrics:then:)``): the node's writer does a lookup per loop, not per
/// subscriber, and the calls go one way, from the hub to the loops.
final class EventHub: Sendable {
    /// Makes the delivery spans of traced events (``DeliverySpan``); `nil` when tracing is off.
    let tracer: (any Tracer)?
    /// This node's id, on its delivery spans.
    let node: String

    init(tracer: (any Tracer)? = nil, node: String = "") {
        self.tracer = tracer
        self.node = node
    }

    /// The drainer of each event loop that has had a connection of this node: one a loop
    /// of the (process-wide) event loop group, never removed. Each holds its loop, so a
    /// loop's identifier is never reused for another while its drainer is here.
    private let drainers = Locked<[ObjectIdentifier: LoopDrainer]>([:])

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

    /// The drainer that keeps `loop`'s subscribers of this node, made on first use.
    func drainer(for loop: any EventLoop) -> LoopDrainer {
        drainers.withLock { drainers in
            if let drainer = drainers[ObjectIdentifier(loop)] { return drainer }
            let drainer = LoopDrainer(loop: loop)
            drainers[ObjectIdentifier(loop)] = drainer
            return drainer
        }
    }

    /// This node's subscribers of `stream`, on every loop.
    func subscriberCount(_ stream: String) -> Int {
        drainers.withLock { Array($0.values) }.reduce(0) { $0 + $1.subscriberCount(stream) }
    }

    /// Hands `events` (stored, in offset order per stream) to the event loops that have
    /// subscribers of their streams; `handedOff` runs once each of those loops has queued
    /// them on its subscribers (at once when none has any). `traces`, when not empty, holds
    /// each event's write span (see ``Broker/publish(_:traces:then:)``), which this node's
    /// delivery span of it follows.
    func publish(_ events: [StreamEvent], traces: [ServiceContext?] = [], metrics: ServerMetrics, then handedOff: (@Sendable () -> Void)? = nil) {
        let loops = drainers.withLock { Array($0.values) }.compactMap { drainer -> (drainer: LoopDrainer, events: [Int])? in
            let followed = drainer.followed(events)
            return followed.isEmpty ? nil : (drainer, followed)
        }
        var frames: [Int: ByteBuffer] = [:]
        for index in loops.flatMap(\.events) where frames[index] == nil {
            frames[index] = try? Self.encode(events[index])
        }
        let spans = deliverySpans(events, traces: traces, loops: loops.map(\.events))
        let countdown = loops.isEmpty ? nil : handedOff.map { HandOffCountdown(loops: loops.count, then: $0) }
        for (drainer, indices) in loops {
            let handOff = LoopDrainer.HandOff(
                events: indices.compactMap { index in frames[index].map { (events[index], $0, spans[index]) } },
                metrics: metrics, countdown: countdown)
            drainer.handOff(handOff)
        }
        if countdown == nil { handedOff?() }
    }

    /// The delivery span of each traced event, by index (``DeliverySpan``); empty when
    /// tracing is off or no event is traced.
    private func deliverySpans(_ events: [StreamEvent], traces: [ServiceContext?], loops: [[Int]]) -> [Int: DeliverySpan] {
        guard let tracer, traces.count == events.count else { return [:] }
        var loopCount: [Int: Int] = [:]
        for indices in loops { for index in indices { loopCount[index, default: 0] += 1 } }
        var spans: [Int: DeliverySpan] = [:]
        for (index, trace) in traces.enumerated() {
            guard let trace else { continue }
            spans[index] = DeliverySpan(events[index], parent: trace, loops: loopCount[index] ?? 0, node: node, tracer: tracer)
        }
        return spans
    }

    /// Hands a signal to the event loops that have subscribers of its stream, each of which
    /// queues it on those whose subscription is live (``LoopDrainer/signal(_:frame:)``).
    func signal(_ signal: StreamSignal, metrics: ServerMetrics) {
        let loops = drainers.withLock { Array($0.values) }.filter { $0.subscriberCount(signal.stream) > 0 }
        guard !loops.isEmpty, let data = try? WireCoding.encode(SignalFrame(signal: signal)) else { return }
        let frame = WireHandler.textFrame(data)
        for drainer in loops { drainer.signal(signal.stream, frame: frame, metrics: metrics) }
    }

    /// The WebSocket frame of `event`, made once for all its subscribers: the bytes
    /// `WireCoding.encode(EventFrame(event:))` writes, written straight from the event's
    /// fields (``EventFrame/wireJSON()``).
    static func encode(_ event: StreamEvent) throws -> ByteBuffer {
        WireHandler.textFrame(try EventFrame(event: event).wireJSON())
    }
}

extension StreamEvent {
    /// Whether `userId` may receive this event.
    func isVisible(to userId: String) -> Bool {
        audience?.contains(userId) ?? true
    }
}
