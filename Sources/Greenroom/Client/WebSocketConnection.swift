import GreenroomProtocol
import NIOCore
import NIOWebSocket

/// One open client WebSocket: sends masked frames, answers pings, joins fragmented
/// messages, runs the close handshake, and pings the server to notice a dead connection.
final class WebSocketConnection: Sendable {
    /// How the server ended the connection: its close frame's code and reason.
    struct Closed: Sendable {
        /// The close code (1005 when the frame carried none).
        var code: UInt16
        /// The reason text, if any.
        var reason: String?
    }

    /// Why reading stopped without a close frame.
    struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        var description: String
    }

    private let asyncChannel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>
    /// Whether this side has sent its close frame (it is sent once).
    private let closeSent = Locked(false)
    /// Whether anything arrived since the heartbeat last looked.
    private let heard = Locked(true)

    /// Wraps an upgraded channel; called on its event loop by the upgrader.
    init(channel: any Channel) throws {
        asyncChannel = try NIOAsyncChannel(wrappingChannelSynchronously: channel)
    }

    private var channel: any Channel { asyncChannel.channel }

    /// Sends one text message; returns once it is written to the socket.
    func send(text: some Sequence<UInt8>) async throws {
        let data = channel.allocator.buffer(bytes: text)
        try await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: data)).get()
    }

    /// Starts the close handshake with `code`; the read loop ends when the server answers,
    /// and the socket is closed after `timeout` if it does not. Later calls do nothing.
    func close(code: WebSocketErrorCode = .normalClosure, reason: String = "", timeout: TimeAmount = .seconds(2)) async {
        let first = closeSent.withLock { sent in
            defer { sent = true }
            return !sent
        }
        guard first else { return }
        var data = channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.write(webSocketErrorCode: code)
        data.writeString(reason)
        let channel = self.channel
        try? await channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)).get()
        channel.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    /// Closes the socket at once, without the close handshake.
    func cut() {
        channel.close(promise: nil)
    }

    /// Reads until the connection ends, handing each complete message to `onMessage`.
    ///
    /// Returns the server's close frame, or `nil` when the socket closed without one (the
    /// network failed, or no frame arrived within two heartbeat intervals). Throws when the
    /// server broke the protocol.
    func run(heartbeat: Duration, maxMessageBytes: Int, onMessage: (ByteBuffer) -> Void) async throws -> Closed? {
        try await asyncChannel.executeThenClose { inbound, _ in
            let pinger = Task { await self.keepAlive(every: heartbeat) }
            defer { pinger.cancel() }
            var partial: ByteBuffer?
            for try await frame in inbound {
                heard.withLock { $0 = true }
                switch frame.opcode {
                case .text, .binary:
                    if frame.fin { onMessage(frame.unmaskedData) } else { partial = frame.unmaskedData }
                case .continuation:
                    guard var message = partial else {
                        await close(code: .protocolError, reason: "continuation without a message")
                        throw Failure(description: "the server sent a continuation frame without a message")
                    }
                    var data = frame.unmaskedData
                    guard message.readableBytes + data.readableBytes <= maxMessageBytes else {
                        await close(code: .messageTooLarge, reason: "message too large")
                        throw Failure(description: "the server sent a message over \(maxMessageBytes) bytes")
                    }
                    message.writeBuffer(&data)
                    partial = frame.fin ? nil : message
                    if frame.fin { onMessage(message) }
                case .ping:
                    let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                    try? await channel.writeAndFlush(pong).get()
                case .connectionClose:
                    var data = frame.unmaskedData
                    let code = data.readWebSocketErrorCode()
                    let reason = data.readString(length: data.readableBytes)
                    await close(code: code ?? .normalClosure)  // the answer, unless this side closed first
                    return Closed(code: code.map { UInt16(webSocketErrorCode: $0) } ?? 1005, reason: reason?.isEmpty == false ? reason : nil)
                default:
                    break  // pong, reserved opcodes
                }
            }
            return nil
        }
    }

    /// Pings every `interval`; closes the socket when nothing arrived during a whole interval.
    private func keepAlive(every interval: Duration) async {
        while (try? await Task.sleep(for: interval)) != nil {
            let alive = heard.withLock { heard in
                defer { heard = false }
                return heard
            }
            guard alive else {
                cut()
                return
            }
            let ping = WebSocketFrame(fin: true, opcode: .ping, maskKey: .random(), data: channel.allocator.buffer(string: "hb"))
            try? await channel.writeAndFlush(ping).get()
        }
    }
}
