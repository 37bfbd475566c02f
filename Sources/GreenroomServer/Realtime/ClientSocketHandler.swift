import GreenroomProtocol
import NIOCore
import NIOWebSocket

/// A client's WebSocket on its event loop, after the upgrade: joins a message's fragments
/// (at most ``Limits/maxClientFrameBytes`` in all), hands each message to the
/// connection's ``CommandQueue``, answers pings, answers the client's close and closes
/// the socket. A protocol violation (an unmasked frame, a bad close frame among them)
/// closes with 1002, text that is not UTF-8 with 1007, a message too big with 1009. When
/// the socket closes, the connection's clean-up runs (``ServerCore/endSession(_:)``).
///
/// Frames too large or malformed are refused before they get here, by NIO's frame decoder
/// and its protocol error handler (1009 and 1002).
final class ClientSocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let queue: CommandQueue
    private let expiry: Scheduled<Void>
    /// The fragments of a message still arriving.
    private var fragments: ByteBuffer?
    /// Whether the message arriving in fragments is text (checked as UTF-8 when whole).
    private var fragmentsAreText = false
    private var closing = false

    init(queue: CommandQueue, expiry: Scheduled<Void>) {
        self.queue = queue
        self.expiry = expiry
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard !closing else { return }
        // A client must mask every frame it sends (RFC 6455, 5.1), and no extension that
        // would use the reserved bits was agreed.
        guard frame.maskKey != nil, frame.rsv1 == false, frame.rsv2 == false, frame.rsv3 == false else {
            return fail(context, .protocolError)
        }
        switch frame.opcode {
        case .text, .binary:
            guard fragments == nil else { return fail(context, .protocolError) }
            if frame.fin {
                deliver(context, frame.unmaskedData, isText: frame.opcode == .text)
            } else {
                fragments = frame.unmaskedData
                fragmentsAreText = frame.opcode == .text
            }
        case .continuation:
            guard var message = fragments else { return fail(context, .protocolError) }
            guard message.readableBytes + frame.length <= Limits.maxClientFrameBytes else {
                return fail(context, .messageTooLarge)
            }
            var data = frame.unmaskedData
            message.writeBuffer(&data)
            if frame.fin {
                fragments = nil
                deliver(context, message, isText: fragmentsAreText)
            } else {
                fragments = message
            }
        case .ping:
            guard frame.fin else { return fail(context, .protocolError) }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            break
        case .connectionClose:
            answerClose(context, frame)
        default:
            fail(context, .protocolError)
        }
    }

    /// Hands a whole message to the command queue; text that is not valid UTF-8 fails the
    /// connection with 1007 (RFC 6455, 8.1).
    private func deliver(_ context: ChannelHandlerContext, _ message: ByteBuffer, isText: Bool) {
        guard !isText || Self.isValidUTF8(message.readableBytesView) else { return fail(context, .dataInconsistentWithMessage) }
        queue.received(message)
    }

    /// The client closes: unless the server asked first (then this is the answer), the
    /// close is answered with the client's code, and the socket is closed once it is written.
    /// A close frame that breaks the rules fails the connection instead: a 1-byte payload or
    /// a code not allowed on the wire with 1002, a reason that is not UTF-8 with 1007.
    private func answerClose(_ context: ChannelHandlerContext, _ frame: WebSocketFrame) {
        var data = frame.unmaskedData
        guard data.readableBytes != 1, let code = data.readableBytes == 0 ? 1000 : data.readInteger(as: UInt16.self),
              Self.isAllowedCloseCode(code) else { return fail(context, .protocolError) }
        guard Self.isValidUTF8(data.readableBytesView) else { return fail(context, .dataInconsistentWithMessage) }
        closing = true
        let channel = context.channel
        guard !queue.connection.closeRequested else {
            channel.close(promise: nil)
            return
        }
        writeThenClose(context, code: code)
    }

    /// Whether a peer may send `code` in a close frame (RFC 6455, 7.4): the defined codes
    /// but 1004–1006 and 1015, and 3000–4999 for libraries and applications.
    static func isAllowedCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// Whether `bytes` are valid UTF-8; ASCII (most commands) is checked without decoding.
    static func isValidUTF8(_ bytes: ByteBufferView) -> Bool {
        bytes.withContiguousStorageIfAvailable { storage in
            storage.allSatisfy { $0 < 0x80 } || String(validating: storage, as: UTF8.self) != nil
        } ?? (String(validating: bytes, as: UTF8.self) != nil)
    }

    /// Closes with `code` at once: the client broke the protocol.
    private func fail(_ context: ChannelHandlerContext, _ code: WebSocketErrorCode) {
        closing = true
        fragments = nil
        writeThenClose(context, code: UInt16(webSocketErrorCode: code))
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
        fragments = nil
        let queue = self.queue
        let core = queue.core
        core.connections.markClosing(queue.connection)
        Task { await core.endSession(queue) }
        context.fireChannelInactive()
    }
}
