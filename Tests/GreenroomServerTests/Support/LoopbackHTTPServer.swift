import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 endpoint on loopback for the tests' stand-ins of outside services (a
/// webhook backend, an OTLP collector): each request is read whole and handed to `answer`
/// with a ``Reply`` that sends its response, at once or after a delay.
enum LoopbackHTTPServer {
    /// Sends one request's response, on its connection's event loop.
    struct Reply: Sendable {
        fileprivate let loop: any EventLoop
        fileprivate let write: @Sendable (HTTPResponseHead, ByteBuffer) -> Void

        /// Sends `status` with `headers` and `body` (its `Content-Length` set), after `delay`
        /// when given; then calls `then`.
        func send(status: Int, headers: [(String, String)] = [], body: ByteBuffer = ByteBuffer(),
                  after delay: TimeAmount? = nil, then: @escaping @Sendable () -> Void = {}) {
            var fields = HTTPHeaders(headers)
            fields.add(name: "Content-Length", value: "\(body.readableBytes)")
            let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: fields)
            let write = write
            guard let delay else {
                // Answered from the handler (on the loop) it is written at once.
                if loop.inEventLoop {
                    write(head, body)
                    then()
                } else {
                    loop.execute { write(head, body); then() }
                }
                return
            }
            loop.scheduleTask(in: delay) { write(head, body); then() }
        }
    }

    /// Listens on `port` (0: any) until the returned channel is closed.
    static func listen(port: Int = 0, _ answer: @escaping @Sendable (HTTPRequestHead, Data, Reply) -> Void) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Handler(answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let answer: @Sendable (HTTPRequestHead, Data, Reply) -> Void
        var head: HTTPRequestHead?
        var body = Data()

        init(answer: @escaping @Sendable (HTTPRequestHead, Data, Reply) -> Void) { self.answer = answer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = Data()
            case .body(let buffer):
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                guard let head else { return }
                let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                answer(head, body, Reply(loop: context.eventLoop) { response, body in
                    let (handler, context) = bound.value
                    context.write(handler.wrapOutboundOut(.head(response)), promise: nil)
                    if body.readableBytes > 0 { context.write(handler.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
                    context.writeAndFlush(handler.wrapOutboundOut(.end(nil)), promise: nil)
                })
            }
        }
    }
}
