import GreenroomProtocol
import Tracing

/// One node's `event.deliver` span of a traced event: from the hub's hand-off to the
/// moment the last of the node's event loops that follow its stream has queued it on its
/// subscribers, with how many it reached. A child of the write that stored the event, on
/// this node or (through PostgreSQL's notification) on another.
final class DeliverySpan: Sendable {
    private let span: any Span
    private struct State {
        var loops: Int
        var delivered = 0
    }
    private let state: Locked<State>

    /// Starts the span of `event` on a node whose `loops` event loops follow its stream;
    /// with none, it ends at once.
    init(_ event: StreamEvent, parent: ServiceContext, loops: Int, node: String, tracer: any Tracer) {
        span = tracer.startSpan("event.deliver", context: parent, ofKind: .consumer)
        span.attributes["greenroom.stream"] = event.stream
        span.attributes["greenroom.offset"] = Int64(clamping: event.offset)
        span.attributes["greenroom.event.type"] = event.type
        span.attributes["greenroom.node"] = node
        state = Locked(State(loops: loops))
        if loops == 0 { finish(0) }
    }

    /// One loop has queued the event on `delivered` of its subscribers.
    func loopDone(delivered: Int) {
        let total = state.withLock { state -> Int? in
            state.loops -= 1
            state.delivered += delivered
            return state.loops == 0 ? state.delivered : nil
        }
        if let total { finish(total) }
    }

    private func finish(_ delivered: Int) {
        span.attributes["greenroom.subscribers"] = delivered
        span.end()
    }
}
