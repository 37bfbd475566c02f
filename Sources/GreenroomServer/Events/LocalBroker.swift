import GreenroomProtocol
import ServiceLifecycle
import Tracing

/// The broker of a single node: events go to this node's hub as they are stored.
struct LocalBroker: Broker {
    let hub: EventHub
    let metrics: ServerMetrics

    func publish(_ events: [StreamEvent], traces: [ServiceContext?], then handedOff: @escaping @Sendable () -> Void) {
        hub.observe(events)
        hub.publish(events, traces: traces, metrics: metrics, then: handedOff)
    }
    func signal(_ signal: StreamSignal) {
        hub.signal(signal, metrics: metrics)
    }
    /// Every event reaches the hub as it is stored: a subscriber misses none.
    func follow(_ stream: String, after head: UInt64) {}
    var service: (any Service)? { nil }
}

extension PostgresEventRelay: Broker {
    func publish(_ events: [StreamEvent], traces: [ServiceContext?], then handedOff: @escaping @Sendable () -> Void) {
        for (index, event) in events.enumerated() { offer(event, trace: index < traces.count ? traces[index] : nil) }
        handedOff()
    }
    func signal(_ signal: StreamSignal) {
        relay(signal)
    }
    var service: (any Service)? { self }
}
