import GreenroomProtocol
import Tracing

/// A WebSocket command's span, when tracing is on: named by its operation, from the moment
/// its frame was read to its reply, with its caller and outcome. What the command writes
/// (`store.write`) and each node's delivery of the events it stored (`event.deliver`)
/// follow it in the same trace.
struct CommandSpan: Sendable {
    private let span: any Span

    /// Starts the span of `command`, at `arrived` when known (else now).
    init(_ command: CommandFrame, caller: Caller, arrived: DefaultTracerClock.Instant?, tracer: any Tracer) {
        span = tracer.startSpan(command.op, context: .topLevel, ofKind: .server, at: arrived ?? DefaultTracerClock.now)
        span.attributes["rpc.system"] = "greenroom"
        span.attributes["rpc.method"] = command.op
        span.attributes["greenroom.command.id"] = Int64(clamping: command.id)
        span.attributes["enduser.id"] = caller.identity.userId
    }

    /// The span's context, for what the command does inside it.
    var context: ServiceContext { span.context }

    /// Ends the span with the command's outcome: `ok`, or the name of its error.
    func end(_ failure: GreenroomError?) {
        if let failure {
            span.attributes["greenroom.outcome"] = failure.name
            span.attributes["greenroom.error.code"] = failure.code
            span.setStatus(SpanStatus(code: .error, message: failure.message))
        } else {
            span.attributes["greenroom.outcome"] = "ok"
        }
        span.end()
    }
}
