import Foundation
import GreenroomProtocol
import GreenroomStorage

/// Where and how the server exports traces: each command's span from its WebSocket frame
/// through its write to every node's delivery of its events, sent over OTLP/HTTP
/// (OpenTelemetry's protocol) to a collector, Jaeger, Tempo or the like. Off unless
/// ``endpoint`` is set, and then costs nothing per command or event (no span is made).
public struct TracingSettings: Sendable, Hashable {
    /// The collector's OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`; spans go to its
    /// `/v1/traces` (`GREENROOM_OTLP_ENDPOINT`, `serve --otlp-endpoint`; none by default:
    /// tracing off).
    public var endpoint: String?
    /// The `service.name` the spans carry (`GREENROOM_OTLP_SERVICE_NAME`, default `greenroom`).
    public var serviceName = "greenroom"
    /// The share of commands traced, 0 to 1, kept or dropped by trace id so that every node
    /// agrees (`GREENROOM_TRACE_SAMPLE_RATIO`, default 1: every command).
    public var sampleRatio = 1.0
    /// How long finished spans wait to be sent in one batch, in seconds
    /// (`GREENROOM_OTLP_EXPORT_SECONDS`, default 5); what is left is sent at shutdown.
    public var exportInterval: TimeInterval = 5
    /// Whether the spans go as JSON rather than protobuf (`GREENROOM_OTLP_JSON=1`; default
    /// protobuf, which every OTLP receiver takes).
    public var json = false

    /// Tracing off.
    public init() {}

    /// Whether spans are made and exported.
    public var isEnabled: Bool { endpoint != nil }

    /// Reads the `GREENROOM_OTLP_*` and `GREENROOM_TRACE_*` variables into `settings`.
    package static func read(_ variables: EnvironmentVariables, into settings: inout TracingSettings) throws {
        settings.endpoint = variables.text("GREENROOM_OTLP_ENDPOINT") ?? settings.endpoint
        settings.serviceName = variables.text("GREENROOM_OTLP_SERVICE_NAME") ?? settings.serviceName
        settings.sampleRatio = try variables.value("GREENROOM_TRACE_SAMPLE_RATIO") ?? settings.sampleRatio
        settings.exportInterval = try variables.value("GREENROOM_OTLP_EXPORT_SECONDS") ?? settings.exportInterval
        settings.json = try variables.flag("GREENROOM_OTLP_JSON") ?? settings.json
    }

    /// Checks that every setting is in range.
    package func validate() throws {
        if let endpoint {
            guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                throw GreenroomServerError.invalidConfiguration("the OTLP endpoint must be an http:// or https:// URL, e.g. http://127.0.0.1:4318")
            }
        }
        guard sampleRatio >= 0, sampleRatio <= 1 else {
            throw GreenroomServerError.invalidConfiguration("the trace sample ratio must be 0 to 1")
        }
        guard exportInterval >= 0.01, exportInterval <= 3_600 else {
            throw GreenroomServerError.invalidConfiguration("the OTLP export interval must be 0.01 s to an hour")
        }
        guard !serviceName.isEmpty else {
            throw GreenroomServerError.invalidConfiguration("the traces' service name must not be empty")
        }
    }
}
