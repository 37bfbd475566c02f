import Tracing

/// The W3C `traceparent` of a span, as text that travels with a write and its events
/// between nodes (in PostgreSQL's notifications), and back to a span's context on the
/// node that reads it. The tracer's own propagator writes and reads it.
package enum TraceContext {
    /// The `traceparent` the tracer writes for `context`, if it writes one.
    package static func traceparent(of context: ServiceContext, tracer: any Tracer) -> String? {
        var headers: [String: String] = [:]
        tracer.inject(context, into: &headers, using: HeaderInjector())
        return headers["traceparent"]
    }

    /// The context `traceparent` names, for a span of this node to follow it.
    package static func context(traceparent: String, tracer: any Tracer) -> ServiceContext {
        var context = ServiceContext.topLevel
        tracer.extract(["traceparent": traceparent], into: &context, using: HeaderExtractor())
        return context
    }

    private struct HeaderInjector: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
            carrier[key] = value
        }
    }

    private struct HeaderExtractor: Extractor {
        func extract(key: String, from carrier: [String: String]) -> String? {
            carrier[key]
        }
    }
}

extension Span {
    /// Marks the span failed with `error` (recorded as its exception event, and its status
    /// an error), and ends it.
    package func fail(_ error: any Error) {
        recordError(error)
        setStatus(SpanStatus(code: .error))
        end()
    }
}
