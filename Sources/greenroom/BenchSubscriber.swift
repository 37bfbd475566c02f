import Foundation
import GreenroomProtocol
import NIOCore
import NIOPosix

/// A cheap subscriber for the load generator: a raw WebSocket that subscribes to one
/// stream and reads only what the figures need (offset and send time) from each frame,
/// without decoding JSON. It is a channel handler: frames are parsed on the event loop as
/// they arrive, with no task per frame. All subscribers share one event loop per core.
struct BenchSubscriber: Sendable {
    struct Result: Sendable {
        var latencies: [Double] = []
        var received = 0
        var duplicates = 0
        var outOfOrder = 0
    }

    static let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

    let url: String
    let token: String
    let stream: String

    /// Connects, subscribes (counting `ready`), reads until `expected` events or `deadline`.
    func run(expected: Int, ready: Tally, deadline: ContinuousClock.Instant) async throws -> Result {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw BenchSubscriberError(description: "cannot connect to \(url)")
        }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
        let subscribe = Self.maskedFrame(opcode: 1, payload: Array(#"{"id":1,"op":"stream.subscribe","args":{"stream":"\#(stream)"}}"#.utf8))
        let loop = Self.group.next()
        let promise = loop.makePromise(of: Result.self)
        let wait = deadline - ContinuousClock.now
        let timeout = TimeAmount.nanoseconds(max(wait.components.seconds, 0) * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
        let channel = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(RawSubscriberHandler(
                        request: request, subscribe: subscribe, expected: expected, timeout: timeout, ready: ready, promise: promise))
                }
            }
            .connect(host: host, port: port).get()
        let result = try await promise.futureResult.get()
        try? await channel.close()
        return result
    }

    /// A client frame (masked, as clients must).
    static func maskedFrame(opcode: UInt8, payload: [UInt8]) -> [UInt8] {
        var frame: [UInt8] = [0x80 | opcode]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xff)]
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xff)) }
        }
        let mask: [UInt8] = [0x37, 0xfa, 0x21, 0x3d]
        frame += mask
        for (i, byte) in payload.enumerated() { frame.append(byte ^ mask[i % 4]) }
        return frame
    }

    static let replyKey = Array(#""re":"#.utf8)
    static let offsetKey = Array(#""offset":"#.utf8)
    static let sentKey = Array(#""t":"#.utf8)

    /// The number after `key` in a JSON text, by scanning (no JSON decoding).
    static func number(after key: [UInt8], in bytes: ByteBufferView) -> Double? {
        let count = bytes.count, keyCount = key.count
        guard count > keyCount else { return nil }
        var i = bytes.startIndex
        let end = bytes.endIndex - keyCount
        while i < end {
            var matched = true
            for k in 0..<keyCount where bytes[i + k] != key[k] {
                matched = false
                break
            }
            if matched {
                var j = i + keyCount
                var text = ""
                while j < bytes.endIndex {
                    let byte = bytes[j]
                    if (byte >= 48 && byte <= 57) || byte == 46 || byte == 45 || byte == 101 || byte == 69 || byte == 43 {
                        text.append(Character(UnicodeScalar(byte)))
                        j += 1
                    } else {
                        break
                    }
                }
                return Double(text)
            }
            i += 1
        }
        return nil
    }
}

struct BenchSubscriberError: Error, CustomStringConvertible {
    let description: String
}

/// The subscriber's whole protocol on the event loop: the upgrade request, the subscribe
/// command, then server frames (never masked) parsed from the bytes as they come.
final class RawSubscriberHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let request: String
    private let subscribe: [UInt8]
    private let expected: Int
    private let timeout: TimeAmount
    private let ready: Tally
    private let promise: EventLoopPromise<BenchSubscriber.Result>
    private var buffer = ByteBuffer()
    private var upgraded = false
    private var subscribed = false
    private var done = false
    private var last: UInt64 = 0
    private var result = BenchSubscriber.Result()

    init(request: String, subscribe: [UInt8], expected: Int, timeout: TimeAmount, ready: Tally,
         promise: EventLoopPromise<BenchSubscriber.Result>) {
        self.request = request
        self.subscribe = subscribe
        self.expected = expected
        self.timeout = timeout
        self.ready = ready
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: request)), promise: nil)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            handler.finish(context)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        if !upgraded {
            let view = buffer.readableBytesView
            guard let end = view.firstRange(of: [13, 10, 13, 10]) else { return }
            let head = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else {
                promise.fail(BenchSubscriberError(description: "upgrade refused: \(head.prefix(40))"))
                done = true
                context.close(promise: nil)
                return
            }
            buffer.moveReaderIndex(to: end.upperBound)
            upgraded = true
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: subscribe)), promise: nil)
        }
        readFrames(context)
        if buffer.readerIndex > 65536 { buffer.discardReadBytes() }
    }

    private func readFrames(_ context: ChannelHandlerContext) {
        while !done, buffer.readableBytes >= 2 {
            let start = buffer.readerIndex
            let first = buffer.getInteger(at: start, as: UInt8.self)!
            let second = buffer.getInteger(at: start + 1, as: UInt8.self)!
            var length = Int(second & 0x7f)
            var header = 2
            if length == 126 {
                guard let value = buffer.getInteger(at: start + 2, as: UInt16.self) else { return }
                length = Int(value)
                header = 4
            } else if length == 127 {
                guard let value = buffer.getInteger(at: start + 2, as: UInt64.self) else { return }
                length = Int(value)
                header = 10
            }
            guard buffer.readableBytes >= header + length else { return }
            let payload = buffer.getSlice(at: start + header, length: length)!
            buffer.moveReaderIndex(forwardBy: header + length)
            switch first & 0x0f {
            case 1: text(payload.readableBytesView, context)
            case 8: finish(context)
            case 9: context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: BenchSubscriber.maskedFrame(opcode: 10, payload: Array(payload.readableBytesView)))), promise: nil)
            default: break
            }
        }
    }

    private func text(_ view: ByteBufferView, _ context: ChannelHandlerContext) {
        let now = Date().timeIntervalSince1970
        if !subscribed {
            if BenchSubscriber.number(after: BenchSubscriber.replyKey, in: view) != nil {
                subscribed = true
                _ = ready.add()
            }
            return
        }
        guard let offset = BenchSubscriber.number(after: BenchSubscriber.offsetKey, in: view) else { return }
        let value = UInt64(offset)
        if value <= last {
            result.duplicates += value == last ? 1 : 0
            result.outOfOrder += value < last ? 1 : 0
            return
        }
        if value != last + 1 && last != 0 { result.outOfOrder += 1 }
        last = value
        result.received += 1
        if let sent = BenchSubscriber.number(after: BenchSubscriber.sentKey, in: view) { result.latencies.append((now - sent) * 1000) }
        if result.received >= expected { finish(context) }
    }

    private func finish(_ context: ChannelHandlerContext) {
        guard !done else { return }
        done = true
        promise.succeed(result)
        context.close(promise: nil)
    }
}
