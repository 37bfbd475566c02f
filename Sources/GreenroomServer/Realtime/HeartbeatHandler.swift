import NIOCore

/// The server's heartbeat on one WebSocket, as a timer on the connection's event loop
/// instead of a task per connection: every `interval` it pings the client, and a client
/// that has sent nothing at all (no pong, no frame) since the previous ping is closed with
/// 1001. It sits first in the pipeline, so it sees every byte the client sends and writes
/// its (server, so unmasked) ping and close frames straight to the socket, between the
/// frames the WebSocket handler writes.
final class HeartbeatHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// A ping with no payload.
    static let ping: [UInt8] = [0x89, 0x00]
    /// A close frame with code 1001 (going away).
    static let closeGoingAway: [UInt8] = [0x88, 0x02, 0x03, 0xE9]

    private let interval: TimeAmount
    private var timer: RepeatedTask?
    private var heard = true
    private var pinged = false

    init(interval: TimeAmount) {
        self.interval = interval
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { task in
            let (handler, context) = loopBound.value
            handler.tick(context, task)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
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

    private func tick(_ context: ChannelHandlerContext, _ task: RepeatedTask) {
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
