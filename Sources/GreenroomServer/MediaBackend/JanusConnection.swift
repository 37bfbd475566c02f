import HTTPTypes
import Logging
import NIOCore
import WSClient

/// Janus's WebSocket API reached with swift-websocket's client.
struct JanusWebSocketConnector: JanusConnector {
    /// The largest message read or written (Janus's SDP answers fit well within it).
    static let maxMessage = 1 << 22

    func connect(url: String, logger: Logger, _ body: @escaping @Sendable (any JanusSocket) async throws -> Void) async throws {
        var configuration = WebSocketClientConfiguration(maxFrameSize: Self.maxMessage)
        configuration.additionalHeaders[HTTPField.Name("Sec-WebSocket-Protocol")!] = "janus-protocol"
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
            try await body(Socket(inbound: inbound, outbound: outbound))
        }
    }

    /// One connection's two directions.
    private struct Socket: JanusSocket {
        let inbound: WebSocketInboundStream
        let outbound: WebSocketOutboundWriter

        func send(_ text: String) async throws { try await outbound.write(.text(text)) }

        func receive(_ body: @Sendable (String) -> Void) async throws {
            for try await message in inbound.messages(maxSize: JanusWebSocketConnector.maxMessage) {
                if case .text(let text) = message { body(text) }
            }
        }

        func close() async throws { try await outbound.close(.normalClosure, reason: nil) }
    }
}
