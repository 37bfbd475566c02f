import GreenroomProtocol
import ServiceLifecycle

/// The broker of a single node: events go to this node's hub as they are stored.
struct LocalBroker: Broker {
    let hub: EventHub
    let metrics: ServerMetrics

    func publish(_ events: [StreamEvent], then handedOff: @escaping @Sendable () -> Void) {
        hub.observe(events)
        hub.publish(events, metrics: metrics, then: handedOff)
    }
    func signal(_ signal: StreamSignal) {
        hub.signal(signal, metrics: metrics)
    }
    var service: (any Service)? { nil }
}

extension PostgresEventRelay: Broker {
    func publish(_ events: [StreamEvent], then handedOff: @escaping @Sendable () -> Void) {
        for event in events { offer(event) }
        handedOff()
    }
    func signal(_ signal: StreamSignal) {
        relay(signal)
    }
    var service: (any Service)? { self }
}
