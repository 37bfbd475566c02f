import GreenroomProtocol
@testable import GreenroomServer
import Logging
import Testing

/// The lines a test's handler wrote.
private final class Lines: TextOutputStream, Sendable {
    private let written = Locked<[String]>([])

    func write(_ string: String) { written.withLock { $0.append(string) } }

    var all: [String] { written.withLock { $0 } }
}

/// A `TextOutputStream` value over ``Lines`` (a handler copies its stream).
private struct LinesStream: TextOutputStream, Sendable {
    let lines: Lines
    mutating func write(_ string: String) { lines.write(string) }
}

@Suite("The server's log handler", .wholeRun)
struct ServerLogHandlerTests {
    /// What `greenroom serve` logs with keeps a logger's metadata as given and writes it with
    /// each line, as swift-log's StreamLogHandler does.
    @Test("a line carries its logger's metadata (set on the logger, as Hummingbird sets a request's id), the line's own and the provider's, in StreamLogHandler's format; below the level nothing is written")
    func linesCarryMetadata() throws {
        let lines = Lines()
        let provider = Logger.MetadataProvider { ["provided": "yes"] }
        var logger = Logger(label: "greenroom") { label in
            var handler = ServerLogHandler(label: label, stream: LinesStream(lines: lines))
            handler.metadataProvider = provider
            return handler
        }
        logger.logLevel = .info
        logger[metadataKey: "hb.request.id"] = "7"
        logger.debug("not written")
        #expect(lines.all.isEmpty)
        logger.info("hello", metadata: ["path": "/v1/events"])
        var request = logger
        request[metadataKey: "hb.request.id"] = "8"
        request.warning("again")
        logger.error("the first logger's own")

        let written = lines.all
        try #require(written.count == 3, "\(written)")
        #expect(written[0].contains(" info greenroom: "), "\(written[0])")
        for (line, id) in zip(written, ["7", "8", "7"]) {
            #expect(line.contains("hb.request.id=\(id)"), "\(line)")
            #expect(line.contains("provided=yes"), "\(line)")
            #expect(line.hasSuffix("\n"))
        }
        #expect(written[0].contains("path=/v1/events") && written[0].hasSuffix("] hello\n"), "\(written[0])")
        #expect(!written[1].contains("path="), "a line's own metadata is its own: \(written[1])")
        #expect(logger[metadataKey: "hb.request.id"] == "7" && request.logLevel == .info)
    }
}
