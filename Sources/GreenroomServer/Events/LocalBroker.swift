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
