import Logging
#if !GREENROOM_WITHOUT_OTEL
import OTel
#endif
import ServiceLifecycle
import Tracing

/// The tracer of a server whose ``TracingSettings`` name an OTLP endpoint: swift-otel's,
/// made for this server alone (not bootstrapped process-wide, so that servers in one
/// process each export their own spans), with the service that batches and sends its spans.
struct TracingBackend {
    /// Makes the spans of commands, writes and deliveries.
    let tracer: any Tracer
    /// Batches finished spans and sends them; run first of the server's services, so that
    /// it stops last and sends what the others' shutdown traced.
    let service: any Service

    /// The backend `settings` ask for; `nil` when tracing is off.
    static func make(_ settings: TracingSettings, logger: Logger) throws -> TracingBackend? {
        guard let endpoint = settings.endpoint else { return nil }
        #if !GREENROOM_WITHOUT_OTEL
        var configuration = OTel.Configuration.default
        configuration.serviceName = settings.serviceName
        configuration.diagnosticLogger = .custom(logger)
        configuration.propagators = [.traceContext]
        configuration.metrics.enabled = false
        configuration.logs.enabled = false
        configuration.traces.enabled = true
        configuration.traces.exporter = .otlp
        // The base URL is the collector's, as OTEL_EXPORTER_OTLP_ENDPOINT is: spans go to its /v1/traces.
        let base = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        configuration.traces.otlpExporter.protocol = settings.json ? .httpJSON : .httpProtobuf
        configuration.traces.sampler = .parentBasedTraceIDRatio(ratio: settings.sampleRatio) ?? .parentBasedAlwaysOn
        configuration.traces.batchSpanProcessor.scheduleDelay = .milliseconds(Int64(settings.exportInterval * 1_000))
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        return TracingBackend(tracer: backend.factory, service: backend.service)
        #else
        // Package.swift leaves swift-otel out of ThreadSanitizer builds.
        _ = endpoint
        throw GreenroomServerError.invalidConfiguration("this build has no OTLP exporter (built with GREENROOM_WITHOUT_OTEL=1)")
        #endif
    }
}
