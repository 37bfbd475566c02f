import Foundation
import NIOCore
import NIOPosix

/// The load generator's raw WebSocket clients: a channel handler that sends the upgrade
/// request, then parses server frames from the bytes as they arrive on the event loop (no
/// task per frame, no JSON decoding); what a client does with them is its subclass's. All
/// raw clients share one event loop per core.
enum BenchRawClient {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    /// The publishers' own event loop (`bench fanout`'s, to Greenroom and to NATS alike): at
    /// 200,000 deliveries a second the subscribers keep both of ``group``'s loops busy, and
    /// a publisher on one of them had its request written and its answer read only after the
    /// subscribers' reads queued there, which counted the load generator's own backlog in a
    /// publish's round trip.
    static let publisherGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Connects a raw client to `url` with `token` and returns what its handler reports,
    /// then closes the connection. `makeHandler` gets the upgrade request, the time left
    /// until `deadline` (when the handler gives up) and the promise to report through.
    static func run<Result: Sendable, Handler: RawClientHandler>(
        url: String, token: String, deadline: ContinuousClock.Instant,
        _ makeHandler: @escaping @Sendable (_ request: String, _ timeout: TimeAmount, _ promise: EventLoopPromise<Result>) -> Handler
    ) async throws -> Result {
        let (host, port, request) = try upgradeRequest(url: url, token: token)
        let loop = group.next()
        let promise = loop.makePromise(of: Result.self)
        let timeout = TimeAmount(until: deadline)
        let channel = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(makeHandler(request, timeout, promise))
                }
            }
            .connect(host: host, port: port).get()
        let result = try await promise.futureResult.get()
        try? await channel.close()
        return result
    }

    /// The host and port of `url`, and the upgrade request a raw client sends there with `token`.
    static func upgradeRequest(url: String, token: String) throws -> (host: String, port: Int, request: String) {
        guard let components = URLComponents(string: url), let host = components.host, let port = components.port else {
            throw BenchSubscriberError(description: "cannot connect to \(url)")
        }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        let request = "GET \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
        return (host, port, request)
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
    static let errorKey = Array(#""error":"#.utf8)

    /// The number after `key` in a JSON text, by scanning (no JSON decoding, no string):
    /// digits, an optional sign and fraction; an exponent makes it fall back to `Double`.
    static func number(after key: [UInt8], in bytes: ByteBufferView) -> Double? {
        guard let start = position(after: key, in: bytes) else { return nil }
        var j = start
        var negative = false
        if j < bytes.endIndex, bytes[j] == UInt8(ascii: "-") {
            negative = true
            j += 1
        }
        var whole: UInt64 = 0
        var digits = 0
        while j < bytes.endIndex, bytes[j] >= 48, bytes[j] <= 57, digits < 18 {
            whole = whole * 10 + UInt64(bytes[j] - 48)
            digits += 1
            j += 1
        }
        guard digits > 0 else { return nil }
        var value = Double(whole)
        if j < bytes.endIndex, bytes[j] == UInt8(ascii: ".") {
            j += 1
            var scale = 0.1
            while j < bytes.endIndex, bytes[j] >= 48, bytes[j] <= 57 {
                value += Double(bytes[j] - 48) * scale
                scale /= 10
                j += 1
            }
        }
        if j < bytes.endIndex, bytes[j] == UInt8(ascii: "e") || bytes[j] == UInt8(ascii: "E") || (bytes[j] >= 48 && bytes[j] <= 57) {
            // An exponent or more digits than fit: read the text the slow way.
            var end = j
            while end < bytes.endIndex, (bytes[end] >= 48 && bytes[end] <= 57) || [43, 45, 46, 69, 101].contains(bytes[end]) { end += 1 }
            return Double(String(decoding: bytes[start..<end], as: UTF8.self))
        }
        return negative ? -value : value
    }

    /// Whether `key` occurs in a JSON text.
    static func contains(_ key: [UInt8], in bytes: ByteBufferView) -> Bool {
        position(after: key, in: bytes) != nil
    }

    /// The string after `key` (a key ending in its opening quote), up to its closing
    /// quote; `nil` when the key is not there.
    static func string(after key: [UInt8], in bytes: ByteBufferView) -> String? {
        guard let start = position(after: key, in: bytes),
              let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func position(after key: [UInt8], in bytes: ByteBufferView) -> Int? {
        let keyCount = key.count
        guard keyCount > 0, bytes.count > keyCount else { return nil }
        let first = key[0]
        var i = bytes.startIndex
        let end = bytes.endIndex - keyCount
        while i < end {
            // Look for the key's first byte, then compare the rest.
            guard let found = bytes[i..<end].firstIndex(of: first) else { return nil }
            var matched = true
            for k in 1..<keyCount where bytes[found + k] != key[k] {
                matched = false
                break
            }
            if matched { return found + keyCount }
            i = found + 1
        }
        return nil
    }
}

struct BenchSubscriberError: Error, CustomStringConvertible {
    let description: String
}

/// The raw client's protocol on the event loop: the upgrade request, then server frames
/// (never masked) parsed from the bytes as they come. Subclasses act on the upgrade and on
/// each text frame, and call ``finish(_:)`` when done.
class RawClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let request: String
    private let timeout: TimeAmount
    private var buffer = ByteBuffer()
    /// Whether the server answered the upgrade with 101.
    private(set) var isUpgraded = false
    /// Whether the client has finished (its result reported, its channel closing).
    private(set) var done = false

    init(request: String, timeout: TimeAmount) {
        self.request = request
        self.timeout = timeout
    }

    /// The upgrade was accepted: start talking.
    func didUpgrade(_ context: ChannelHandlerContext) {}
    /// One text (or binary) frame from the server.
    func didReceive(text: ByteBufferView, _ context: ChannelHandlerContext) {}
    /// Reports the result; `error` is set when the client could not do its work.
    func report(error: (any Error)?) {}

    /// Sends one text frame.
    final func send(_ frame: [UInt8], _ context: ChannelHandlerContext, flush: Bool = true) {
        let data = wrapOutboundOut(ByteBuffer(bytes: frame))
        if flush { context.writeAndFlush(data, promise: nil) } else { context.write(data, promise: nil) }
    }

    /// Ends the client: reports its result once and closes the connection.
    final func finish(_ context: ChannelHandlerContext, error: (any Error)? = nil) {
        guard !done else { return }
        done = true
        report(error: error)
        context.close(promise: nil)
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
        if !isUpgraded {
            let view = buffer.readableBytesView
            guard let end = view.firstRange(of: [13, 10, 13, 10]) else { return }
            let head = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
            guard head.hasPrefix("HTTP/1.1 101") else {
                finish(context, error: BenchSubscriberError(description: "upgrade refused: \(head.prefix(40))"))
                return
            }
            buffer.moveReaderIndex(to: end.upperBound)
            isUpgraded = true
            didUpgrade(context)
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
            case 1, 2: didReceive(text: payload.readableBytesView, context)   // NATS sends binary frames
            case 8: finish(context)
            case 9: send(BenchRawClient.maskedFrame(opcode: 10, payload: Array(payload.readableBytesView)), context)
            default: break
            }
        }
    }
}
