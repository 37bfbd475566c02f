import GreenroomProtocol
import NIOCore
import NIOWebSocket

/// A client's WebSocket on its event loop, after the upgrade: reads each frame with a
/// ``ClientFrameReader`` (RFC 6455's rules, fragments joined), hands each whole message to
/// the connection's ``CommandQueue``, answers pings, answers the client's close and closes
/// the socket, or fails the connection with the reader's code. When the socket closes, it
/// calls `closed` (the session's clean-up, which its maker names), knowing nothing of the
/// server.
final class ClientSocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let queue: CommandQueue
    private let expiry: Scheduled<Void>
    private let closed: @Sendable () -> Void
    private var reader = ClientFrameReader()

    init(queue: CommandQueue, expiry: Scheduled<Void>, closed: @escaping @Sendable () -> Void) {
        self.queue = queue
        self.expiry = expiry
        self.closed = closed
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch reader.read(unwrapInboundIn(data)) {
        case .none:
            break
        case .message(let message):
            queue.received(message)
        case .pong(let payload):
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
        case .close(let code):
            // Unless the server asked first (then this is the answer), the close is answered
            // with the client's code, and the socket is closed once it is written.
            guard !queue.connection.closeRequested else {
                context.channel.close(promise: nil)
                return
            }
            writeThenClose(context, code: code)
        case .fail(let code):
            writeThenClose(context, code: UInt16(webSocketErrorCode: code))
        }
    }

    /// Writes a close frame with `code` and closes the socket once it is written.
    private func writeThenClose(_ context: ChannelHandlerContext, code: UInt16) {
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ClientConnection.closeFrame(code: code, reason: "", allocator: channel.allocator)), promise: written)
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
    }

    /// A client that stops sending (the server allows half-closed sockets, so that is an
    /// event, not a close) is closed; a server shutting down asks each client to reconnect.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        } else if event is ChannelShouldQuiesceEvent {
            queue.connection.requestClose(.serverRestarting, reason: "server restarting: reconnect and resume")
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// NIO's protocol error handler, before this one, answers its own errors with a close
    /// frame and then closes; any other error closes the socket at once.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !(error is NIOWebSocketError) { context.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        expiry.cancel()
        closed()
        context.fireChannelInactive()
    }
}
