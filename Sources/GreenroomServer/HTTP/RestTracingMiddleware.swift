import GreenroomProtocol
import HTTPTypes
import Hummingbird
import Tracing

/// A REST request's span, when tracing is on: named by its method and route
/// (`POST /v1/streams/{stream}/events`), with its status, and the parent of what the request
/// writes and of every node's delivery of its events, as a WebSocket command's span is.
/// A request that carries a W3C `traceparent` (a backend that traces its own work) joins
/// that trace. Probes and scrapes (`/health`, `/ready`, `/metrics`) and the WebSocket
/// upgrade are not traced.
///
/// Hummingbird's own `TracingMiddleware` uses the process-wide tracer; this one uses the
/// server's, so that each server in a process exports its own spans.
struct RestTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    let tracer: any Tracer

    /// Paths whose requests make no span.
    static var untraced: Set<String> { ["/health", "/ready", "/metrics", Sessions.connectPath] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !Self.untraced.contains(request.uri.path) else { return try await next(request, context) }
        var parent = ServiceContext.topLevel
        if let traceparent = request.headers[HTTPField.Name("traceparent")!] {
            parent = TraceContext.context(traceparent: traceparent, tracer: tracer)
        }
        let span = tracer.startSpan("\(request.method.rawValue) unrouted", context: parent, ofKind: .server)
        span.attributes["http.request.method"] = request.method.rawValue
        do {
            let response = try await ServiceContext.$current.withValue(span.context) { try await next(request, context) }
            finish(span, request: request, context: context, status: Int(response.status.code))
            return response
        } catch {
            let status = (error as? any HTTPResponseError).map { Int($0.status.code) } ?? 500
            if let failure = error as? HTTPGreenroomError { span.attributes["greenroom.outcome"] = failure.error.name }
            finish(span, request: request, context: context, status: status)
            throw error
        }
    }

    private func finish(_ span: any Span, request: Request, context: Context, status: Int) {
        if let route = context.endpointPath {
            span.operationName = "\(request.method.rawValue) \(route)"
            span.attributes["http.route"] = route
        }
        span.attributes["http.response.status_code"] = status
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
        span.end()
    }
}
