import Foundation
import NIOCore
import NIOPosix

/// A publisher for the load generator that publishes as a granted client does: over its
/// WebSocket, with `stream.publish`, one command in flight. Like ``BenchPublisher``, the
/// command is made on the event loop just before it is written, and of each reply only its
/// `error` key is looked at.
final class BenchSocketPublisher: Sendable {
    private let channel: any Channel
    private let handler: NIOLoopBound<SocketPublisherHandler>

    private init(channel: any Channel, handler: NIOLoopBound<SocketPublisherHandler>) {
        self.channel = channel
        self.handler = handler
    }

    /// Connects to the WebSocket at `url` with `token` and waits for the upgrade.
    static func connect(url: String, token: String) async throws -> BenchSocketPublisher {
        let (host, port, request) = try BenchRawClient.upgradeRequest(url: url, token: token)
        let loop = BenchRawClient.publisherGroup.next()
        let made = loop.makePromise(of: NIOLoopBound<SocketPublisherHandler>.self)
        let upgraded = loop.makePromise(of: Void.self)
        let channel = try await ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = SocketPublisherHandler(request: request, upgraded: upgraded)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    made.succeed(NIOLoopBound(handler, eventLoop: channel.eventLoop))
                }
            }
            .connect(host: host, port: port).get()
        let handler = try await made.futureResult.get()
        try await upgraded.futureResult.get()
        return BenchSocketPublisher(channel: channel, handler: handler)
    }

    /// Sends `stream.publish` with the arguments `args()` (a JSON object's bytes, made on the
    /// event loop just before the command is written); returns whether the reply was a success.
    func publish(_ args: @escaping @Sendable () -> [UInt8]) async throws -> Bool {
        let promise = channel.eventLoop.makePromise(of: Bool.self)
        channel.eventLoop.execute { [handler, channel] in
            guard let command = handler.value.command(args(), answer: promise) else { return }
            channel.writeAndFlush(ByteBuffer(bytes: BenchRawClient.maskedFrame(opcode: 1, payload: command)), promise: nil)
        }
        return try await promise.futureResult.get()
    }

    /// Closes the connection.
    func close() async {
        try? await channel.close()
    }
}

/// The raw client of ``BenchSocketPublisher``: numbers its commands and completes the
/// publication waiting for each reply, in order (the server answers one connection's
/// commands in the order they came).
final class SocketPublisherHandler: RawClientHandler {
    private let upgraded: EventLoopPromise<Void>
    private var waiting: [EventLoopPromise<Bool>] = []
    private var commandId = 0

    init(request: String, upgraded: EventLoopPromise<Void>) {
        self.upgraded = upgraded
        super.init(request: request, timeout: .hours(24))
    }

    /// The command carrying `args`, with `answer` waiting for its reply; `nil` (and `answer`
    /// failed) once the connection is done.
    func command(_ args: [UInt8], answer: EventLoopPromise<Bool>) -> [UInt8]? {
        guard !done else {
            answer.fail(BenchSubscriberError(description: "the publisher's connection closed"))
            return nil
        }
        commandId += 1
        waiting.append(answer)
        return Array(#"{"id":\#(commandId),"op":"stream.publish","args":"#.utf8) + args + [UInt8(ascii: "}")]
    }

    override func didUpgrade(_ context: ChannelHandlerContext) {
        upgraded.succeed(())
    }

    override func didReceive(text view: ByteBufferView, _ context: ChannelHandlerContext) {
        guard BenchRawClient.number(after: BenchRawClient.replyKey, in: view) != nil, !waiting.isEmpty else { return }
        waiting.removeFirst().succeed(!BenchRawClient.contains(BenchRawClient.errorKey, in: view))
    }

    override func report(error: (any Error)?) {
        let failure = error ?? BenchSubscriberError(description: "the publisher's connection closed")
        if !isUpgraded { upgraded.fail(failure) }
        for answer in waiting { answer.fail(failure) }
        waiting.removeAll()
    }
}
