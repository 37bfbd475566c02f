import NIOCore

/// The first handler of a client's pipeline, next to the socket: the connection's
/// heartbeat, the way its queued frames reach the socket, and the news that a full socket
/// takes writes again.
///
/// Heartbeat: a timer on the connection's event loop (no task per connection) pings the
/// client every `interval`; a client that has sent nothing at all (no pong, no frame) since
/// the previous ping is closed with 1001. It sees every byte the client sends.
///
/// The same timer finds a reader that stalled: a socket that took no write for a whole
/// interval while it had something to take (it stayed full from one tick to the next)
/// belongs to a client that does not read, whatever it sends; it is closed as a slow
/// consumer (4001), and what waited for it is dropped.
///
/// Writes: events, replies and replays are framed once as they are made (``textFrame(_:)``;
/// server frames are not masked, so an event's frame is the same bytes for every
/// subscriber) and written here, straight to the socket, instead of through the pipeline's
/// WebSocket encoder, which would allocate a header and walk every handler per frame.
/// Frames the other handlers write (pongs, close frames) go through the encoder, on the
/// same event loop, so the order of what is written is kept.
final class WireHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A ping with no payload.
    static let ping: [UInt8] = [0x89, 0x00]
    /// A close frame with code 1001 (going away).
    static let closeGoingAway: [UInt8] = [0x88, 0x02, 0x03, 0xE9]
    /// A close frame with code 4001 (``CloseCode/slowConsumer``).
    static let closeSlowConsumer: [UInt8] = [0x88, 0x02, 0x0F, 0xA1]

    private let interval: TimeAmount
    /// Called when the socket takes writes again after it was full.
    var onWritable: (() -> Void)?
    private var timer: RepeatedTask?
    private var context: ChannelHandlerContext?
    private var heard = true
    private var pinged = false
    /// The socket was full at the last tick and has not taken a write since.
    private var fullSinceTick = false

    init(interval: TimeAmount) {
        self.interval = interval
    }

    /// A text frame as the server sends it (final, unmasked) carrying `payload`, copied
    /// straight from where it was encoded.
    static func textFrame(_ payload: some Collection<UInt8>) -> ByteBuffer {
        let count = payload.count
        var frame = ByteBuffer()
        frame.reserveCapacity(count + 10)
        frame.writeInteger(UInt8(0x81))
        switch count {
        case ..<126:
            frame.writeInteger(UInt8(count))
        case ..<65_536:
            frame.writeInteger(UInt8(126))
            frame.writeInteger(UInt16(count))
        default:
            frame.writeInteger(UInt8(127))
            frame.writeInteger(UInt64(count))
        }
        frame.writeBytes(payload)
        return frame
    }

    /// Writes a frame made by ``textFrame(_:)`` (on the event loop); nothing once removed.
    func write(_ frame: ByteBuffer) {
        context?.write(wrapOutboundOut(frame), promise: nil)
    }

    /// Flushes what was written.
    func flush() {
        context?.flush()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
            let (handler, context) = loopBound.value
            handler.tick(context, task)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        onWritable = nil
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        heard = true
        context.fireChannelRead(data)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            fullSinceTick = false
            onWritable?()
        }
        context.fireChannelWritabilityChanged()
    }

    private func tick(_ context: ChannelHandlerContext, _ task: RepeatedTask) {
        if !context.channel.isWritable {
            if fullSinceTick {
                task.cancel()
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Self.closeSlowConsumer)), promise: nil)
                context.close(promise: nil)
                return
            }
            fullSinceTick = true
        }
        if pinged && !heard {
            task.cancel()
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Self.closeGoingAway)), promise: nil)
            context.close(promise: nil)
            return
        }
        heard = false
        pinged = true
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Self.ping)), promise: nil)
    }
}
