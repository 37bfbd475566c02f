import Foundation
import NIOCore
import NIOPosix

/// A cheap publisher for the load generator: one kept-alive HTTP/1.1 connection that posts
/// events one after another and reads only each response's status and length. The send
/// time an event carries is taken just before its request is written, so the latency
/// measured is the server's and the network's, not an HTTP library's.
final class BenchPublisher: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<PublisherHandler>
    private let host: String
    private let apiKey: String

    private init(channel: any Channel, handler: NIOLoopBound<PublisherHandler>, host: String, apiKey: String) {
        self.channel = channel
        self.handler = handler
        self.host = host
        self.apiKey = apiKey
    }

    /// Connects to the server at `baseURL`.
    static func connect(to baseURL: URL, apiKey: String) async throws -> BenchPublisher {
        guard let host = baseURL.host, let port = baseURL.port else { throw BenchSubscriberError(description: "cannot connect to \(baseURL)") }
        let loop = BenchRawClient.publisherGroup.next()
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port).get()
        let handler = try await loop.submit {
            let handler = PublisherHandler()
            try channel.pipeline.syncOperations.addHandler(handler)
            return NIOLoopBound(handler, eventLoop: loop)
        }.get()
        return BenchPublisher(channel: channel, handler: handler, host: "\(host):\(port)", apiKey: apiKey)
    }

    /// Posts `body()` (made on the event loop, just before it is written) to `path`;
    /// returns the response's status.
    func post(_ path: String, _ body: @escaping @Sendable () -> [UInt8]) async throws -> Int {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: Int.self)
        loop.execute { [handler, channel, host, apiKey] in
            let bytes = body()
            var request = ByteBuffer(string: "POST \(path) HTTP/1.1\r\nHost: \(host)\r\nAuthorization: Bearer \(apiKey)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(bytes.count)\r\n\r\n")
            request.writeBytes(bytes)
            handler.value.expect(promise)
            channel.writeAndFlush(request, promise: nil)
        }
        return try await promise.futureResult.get()
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close()
    }
}

/// Reads HTTP/1.1 responses (status line, `Content-Length`, body) and completes the
/// request waiting for each.
final class PublisherHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private var buffer = ByteBuffer()
    private var waiting: [EventLoopPromise<Int>] = []

    func expect(_ promise: EventLoopPromise<Int>) {
        waiting.append(promise)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        while let status = nextResponse() {
            guard !waiting.isEmpty else { break }
            waiting.removeFirst().succeed(status)
        }
        if buffer.readerIndex > 65536 { buffer.discardReadBytes() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for promise in waiting { promise.fail(BenchSubscriberError(description: "the server closed the connection")) }
        waiting.removeAll()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Takes one whole response off the buffer; returns its status.
    private func nextResponse() -> Int? {
        let view = buffer.readableBytesView
        guard let end = view.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: view[view.startIndex..<end.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ").dropFirst().first ?? "") else { return nil }
        let length = lines.dropFirst().compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        let total = end.upperBound - view.startIndex + length
        guard buffer.readableBytes >= total else { return nil }
        buffer.moveReaderIndex(forwardBy: total)
        return status
    }
}
