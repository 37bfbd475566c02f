import Foundation
import GreenroomProtocol
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// Opens the client's WebSocket on SwiftNIO: TCP connect, optional TLS, the HTTP upgrade,
/// all within one deadline.
///
/// The SDK does this itself rather than through swift-websocket's client, which allows remote
/// half-closure and has no handshake deadline: a server that closed the socket before
/// answering the upgrade (a node stopping or dying at that moment) left the attempt waiting
/// forever, so the client never reconnected; and a refused upgrade left its socket open.
/// Here every attempt ends within ``ClientConfiguration/connectTimeout``, and a refusal
/// closes its socket and carries the server's JSON error.
enum WebSocketTransport {
    /// What the server answered to the upgrade.
    enum Opened: Sendable {
        /// Upgraded: the WebSocket.
        case webSocket(WebSocketConnection)
        /// Refused with an HTTP status; `error` is the JSON error the server sent, if any.
        case refused(status: Int, error: GreenroomError?)
    }

    /// Why an attempt failed before the server answered.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        var description: String
        /// The TLS handshake failed (an untrusted or expired certificate, one that does not
        /// name the host, no common protocol version): retrying does not help.
        var tls = false
    }

    /// The largest refusal body read (the server's JSON error is far smaller).
    static let maxRefusalBodyBytes = 64 * 1024

    /// Whether `url` needs TLS (`wss://` or `https://`).
    static func isSecure(_ url: URL) -> Bool { url.scheme == "wss" || url.scheme == "https" }

    /// Opens `url` (`ws://` or `wss://`, the latter with `tls`) with `headers`, or fails,
    /// within `timeout`.
    static func open(
        url: URL, headers: [(String, String)], maxFrameSize: Int, timeout: Duration, tls: NIOSSLContext?,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> Opened {
        guard let host = url.host, !host.isEmpty else { throw Failure(description: "no host in \(url)") }
        let secure = isSecure(url)
        let port = url.port ?? (secure ? 443 : 80)
        guard !secure || tls != nil else { throw Failure(description: "no TLS settings for \(url)", tls: true) }
        let tls = secure ? tls : nil
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?\(query)" }
        var requestHeaders = HTTPHeaders(headers)
        requestHeaders.replaceOrAdd(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: requestHeaders)
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000

        let (channel, answer) = try await ClientBootstrap(group: group)
            .connectTimeout(.nanoseconds(nanoseconds))
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    (channel, try configure(channel, head: head, host: host, tls: tls, maxFrameSize: maxFrameSize,
                                            deadline: .nanoseconds(nanoseconds)))
                }
            }
        // Cancelling the attempt (the app disconnects) closes its socket, which ends it.
        return try await withTaskCancellationHandler {
            try await answer.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Sets up the upgrade on a connected channel; the result completes when the server has
    /// answered, or fails when the channel closes or the deadline passes first.
    private static func configure(
        _ channel: any Channel, head: HTTPRequestHead, host: String, tls: NIOSSLContext?,
        maxFrameSize: Int, deadline: TimeAmount
    ) throws -> EventLoopFuture<Opened> {
        let operations = channel.pipeline.syncOperations
        let handshake = TLSFailureRecorder()
        if let tls {
            // A host given as an address is checked against the certificate's IP addresses;
            // SNI carries names only.
            let isAddress = (try? SocketAddress(ipAddress: host, port: 0)) != nil
            try operations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: isAddress ? nil : host))
            try operations.addHandler(handshake)
        }
        let refusal = channel.eventLoop.makePromise(of: Opened.self)
        let recorder = RefusalRecorder(promise: refusal)
        let encoder = HTTPRequestEncoder()
        let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
        let upgrader = NIOTypedWebSocketClientUpgrader<Opened>(maxFrameSize: maxFrameSize) { channel, _ in
            channel.eventLoop.makeCompletedFuture {
                .webSocket(try WebSocketConnection(channel: channel))
            }
        }
        let upgrade = NIOTypedHTTPClientUpgradeHandler(
            httpHandlers: [encoder, decoder, recorder],
            upgradeConfiguration: .init(upgradeRequestHead: head, upgraders: [upgrader]) { _ in refusal.futureResult }
        )
        try operations.addHandler(encoder)
        try operations.addHandler(decoder)
        try operations.addHandler(recorder)
        try operations.addHandler(upgrade)

        // However far it got, an attempt past its deadline is closed, which fails it.
        let timedOut = Flag()
        let timer = channel.eventLoop.scheduleTask(in: deadline) {
            timedOut.set()
            channel.close(promise: nil)
        }
        let result = upgrade.upgradeResultFuture
        result.whenComplete { outcome in
            timer.cancel()
            switch outcome {
            case .success(.webSocket): break
            // A refusal has been read whole, and a failed attempt is over: close the socket.
            case .success(.refused), .failure: channel.close(promise: nil)
            }
        }
        // The recorder's promise is answered only by a refusal; otherwise it ends with the channel.
        channel.closeFuture.whenComplete { _ in
            refusal.fail(Failure(description: "the connection closed before the server answered the upgrade"))
        }
        // The deadline may pass after the server's answer was read but before the upgrade
        // ended (the handler swaps the pipeline's handlers over later turns of the loop).
        // The deadline has closed the socket by then, so an upgrade that ends well on it
        // fails too, as the deadline's: otherwise the client would report itself connected
        // and send its next command into a connection already gone.
        return result.flatMapThrowing { opened in
            if case .webSocket = opened, timedOut.value { throw ChannelError.alreadyClosed }
            return opened
        }.flatMapErrorThrowing { error in
            if let failure = handshake.failure {
                throw Failure(description: "the TLS handshake with \(host) failed (\(failure)): is the server's certificate trusted (ClientConfiguration.tls.trustRoots), valid now, and made for \(host)?", tls: true)
            }
            if timedOut.value { throw Failure(description: "no answer to the WebSocket upgrade within \(deadline)") }
            if error is ChannelError { throw Failure(description: "the server closed the connection before answering the upgrade") }
            throw Failure(description: "the WebSocket upgrade failed: \(error)")
        }
    }
}

/// Watches the HTTP response to the upgrade request; when it is not an upgrade, collects
/// its body and completes with the refusal (status and JSON error).
private final class RefusalRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias InboundOut = HTTPClientResponsePart

    let promise: EventLoopPromise<WebSocketTransport.Opened>
    private var status = 0
    private var body = ByteBuffer()

    init(promise: EventLoopPromise<WebSocketTransport.Opened>) {
        self.promise = promise
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            status = Int(head.status.code)
        case .body(var part):
            if body.readableBytes + part.readableBytes <= WebSocketTransport.maxRefusalBodyBytes {
                body.writeBuffer(&part)
            }
        case .end:
            if status != 101 {
                let error = try? WireCoding.decode(RefusalBody.self, from: Data(body.readableBytesView)).error
                promise.succeed(.refused(status: status, error: error))
            }
        }
        context.fireChannelRead(data)
    }

    private struct RefusalBody: Decodable {
        var error: GreenroomError
    }
}

/// Keeps the error that failed the TLS handshake, which would otherwise surface only as a
/// closed connection.
private final class TLSFailureRecorder: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let recorded = Locked<String?>(nil)

    /// The handshake's error, if it failed.
    var failure: String? { recorded.withLock { $0 } }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError {
            recorded.withLock { $0 = $0 ?? "\(error)" }
        }
        context.fireErrorCaught(error)
    }
}
