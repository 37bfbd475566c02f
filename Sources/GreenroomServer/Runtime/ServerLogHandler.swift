import Logging

/// The log handler of `greenroom serve`: swift-log's `StreamLogHandler` lines, as without
/// it, but a logger's metadata is kept as given and made into text only for a line that is
/// logged.
///
/// `StreamLogHandler` makes its metadata's text each time the metadata is set, and
/// Hummingbird sets a request id on every request's logger: at the default level, which
/// logs no line for a request, every REST request paid for text nobody read (1.6% of the
/// server's CPU samples at 100 subscribers × 1,000 REST publishes a second; BENCHMARKS.md).
package struct ServerLogHandler: LogHandler {
    /// Writes each line; its metadata is set just before, from ``metadata``.
    private var output: StreamLogHandler

    /// The metadata every line of this logger carries.
    package var metadata: Logger.Metadata = [:]

    /// A handler for the logger labelled `label`, writing to standard error.
    package init(label: String) {
        output = StreamLogHandler.standardError(label: label)
    }

    /// A handler for the logger labelled `label`, writing to `stream`.
    package init(label: String, stream: any TextOutputStream & Sendable) {
        output = StreamLogHandler(label: label, stream: stream)
    }

    /// The lowest level this logger writes.
    package var logLevel: Logger.Level {
        get { output.logLevel }
        set { output.logLevel = newValue }
    }

    /// What adds metadata to every line as it is logged (task-local values).
    package var metadataProvider: Logger.MetadataProvider? {
        get { output.metadataProvider }
        set { output.metadataProvider = newValue }
    }

    /// One item of ``metadata``.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as `StreamLogHandler` does, with this logger's metadata.
    package func log(event: LogEvent) {
        var output = output
        output.metadata = metadata
        output.log(event: event)
    }
}
