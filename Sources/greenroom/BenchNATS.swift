import ArgumentParser
import Foundation
import GreenroomProtocol
import GreenroomServer
import NIOCore
import NIOPosix

/// The peer `bench fanout --peer nats` and `bench room --peer nats` measure beside
/// Greenroom: a `nats-server` started here with a WebSocket listener, subscribed to by the
/// same raw WebSocket clients and published to with plain `PUB`s over TCP, paced like
/// Greenroom's publishers.
final class NATSPeer: Sendable {
    let process: ChildProcess
    let port: Int
    let webSocketPort: Int
    let directory: URL
    /// The subject the run publishes on.
    static let subject = "fanout"

    private init(process: ChildProcess, port: Int, webSocketPort: Int, directory: URL) {
        self.process = process
        self.port = port
        self.webSocketPort = webSocketPort
        self.directory = directory
    }

    /// `nats-server` from `path`, else on PATH.
    static func find(_ path: String?) -> String? {
        if let path { return FileManager.default.isExecutableFile(atPath: path) ? path : nil }
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/sbin").split(separator: ":")
        return folders.map { "\($0)/nats-server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The nats-server a benchmark's `--peer` asks for (`nil` without one): `--nats-server`,
    /// else the one on PATH; checked before the run starts.
    static func program(peer: String?, natsServer: String?) throws -> String? {
        guard let peer else { return nil }
        guard peer == "nats" else { throw ValidationError("--peer takes nats") }
        guard let program = find(natsServer) else { throw ValidationError("--peer nats needs nats-server on PATH, or --nats-server") }
        return program
    }

    /// Puts the peer's figures under `nats` in `figures`, with the ratio of Greenroom's p99
    /// to the peer's (`p99RatioToNats`); returns how many the peer lost.
    static func report(_ peer: [String: RawJSON], in figures: inout [String: RawJSON]) -> Double {
        figures["nats"] = .dictionary(peer)
        if let ours = figures["latencyP99Ms"]?.numberValue, let theirs = peer["latencyP99Ms"]?.numberValue, theirs > 0 {
            figures["p99RatioToNats"] = BenchReport.rounded(ours / theirs, 2)
        }
        return peer["lost"]?.numberValue ?? 0
    }

    /// Starts `program` on two free local ports and waits until both listen.
    static func start(_ program: String) async throws -> NATSPeer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-bench-nats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freePort(), webSocketPort = try freePort()
        let config = directory.appendingPathComponent("nats.conf")
        try Data("""
            listen: "127.0.0.1:\(port)"
            websocket {
              listen: "127.0.0.1:\(webSocketPort)"
              no_tls: true
            }
            """.utf8).write(to: config)
        let process = try await ChildProcess.start(
            program, arguments: ["-c", config.path], errors: .file(directory.appendingPathComponent("nats.log").path))
        let peer = NATSPeer(process: process, port: port, webSocketPort: webSocketPort, directory: directory)
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if listening(port), listening(webSocketPort) { return peer }
            try await Task.sleep(for: .milliseconds(50))
        }
        peer.stop()
        throw BenchSubscriberError(description: "nats-server did not start: \((try? String(contentsOf: directory.appendingPathComponent("nats.log"), encoding: .utf8)) ?? "")")
    }

    var webSocketURL: String { "ws://127.0.0.1:\(webSocketPort)/" }

    /// nats-server's CPU seconds so far.
    var cpuSeconds: Double? { ProcStat.cpuSeconds(pid: process.pid) }

    /// nats-server's peak resident memory in bytes (`VmHWM`).
    var peakMemory: Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kb * 1024
    }

    func stop() {
        process.stopAndWait()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: BenchRawClient.group).bind(host: "127.0.0.1", port: 0).wait()
        defer { try? channel.close().wait() }
        guard let port = channel.localAddress?.port else { throw BenchSubscriberError(description: "no free port") }
        return port
    }

    private static func listening(_ port: Int) -> Bool {
        guard let channel = try? ClientBootstrap(group: BenchRawClient.group).connect(host: "127.0.0.1", port: port).wait() else { return false }
        try? channel.close().wait()
        return true
    }

    /// A subscriber: connects over the WebSocket listener, subscribes, and reads `expected`
    /// messages or until `deadline`.
    func subscribe(expected: Int, ready: Tally, deadline: ContinuousClock.Instant) async throws -> BenchSubscriber.Result {
        let hello = BenchRawClient.maskedFrame(opcode: 2, payload: Array(
            "CONNECT {\"verbose\":false,\"pedantic\":false,\"protocol\":1}\r\nSUB \(Self.subject) 1\r\nPING\r\n".utf8))
        return try await BenchRawClient.run(url: webSocketURL, token: "", deadline: deadline) { request, timeout, promise in
            NATSSubscriberHandler(request: request, timeout: timeout, hello: hello, expected: expected, ready: ready, promise: promise)
        }
    }
}

/// A NATS subscriber on the event loop: reads the protocol's lines from the frames (a
/// message may span frames), answers the server's `PING`s, counts every message once
/// whatever its order (NATS orders messages per publisher only; several publish here).
final class NATSSubscriberHandler: RawClientHandler {
    private let hello: [UInt8]
    private let expected: Int
    private let ready: Tally
    private let promise: EventLoopPromise<BenchSubscriber.Result>
    private var stream = ByteBuffer()
    private var subscribed = false
    private var seen: [Bool]
    private var last = 0
    private var result = BenchSubscriber.Result()

    init(request: String, timeout: TimeAmount, hello: [UInt8], expected: Int, ready: Tally,
         promise: EventLoopPromise<BenchSubscriber.Result>) {
        self.hello = hello
        self.expected = expected
        self.ready = ready
        self.promise = promise
        self.seen = Array(repeating: false, count: expected + 1)
        super.init(request: request, timeout: timeout)
    }

    override func didUpgrade(_ context: ChannelHandlerContext) {
        send(hello, context)
    }

    override func didReceive(text view: ByteBufferView, _ context: ChannelHandlerContext) {
        stream.writeBytes(view)
        let now = Date().timeIntervalSince1970
        while !done {
            let bytes = stream.readableBytesView
            guard let end = bytes.firstRange(of: [13, 10]) else { break }
            let line = bytes[bytes.startIndex..<end.lowerBound]
            if line.starts(with: Array("MSG ".utf8)) {
                guard let size = line.split(separator: 32).last.flatMap({ Int(String(decoding: $0, as: UTF8.self)) }),
                      bytes.endIndex - end.upperBound >= size + 2 else { break }
                message(bytes[end.upperBound..<(end.upperBound + size)], at: now, context)
                stream.moveReaderIndex(to: end.upperBound + size + 2)
                continue
            }
            if line.elementsEqual(Array("PING".utf8)) {
                send(BenchRawClient.maskedFrame(opcode: 2, payload: Array("PONG\r\n".utf8)), context)
            } else if line.elementsEqual(Array("PONG".utf8)), !subscribed {
                subscribed = true
                _ = ready.add()
            } else if line.starts(with: Array("-ERR".utf8)) {
                finish(context, error: BenchSubscriberError(description: String(decoding: line, as: UTF8.self)))
            }
            stream.moveReaderIndex(to: end.upperBound)
        }
        if stream.readerIndex > 65536 { stream.discardReadBytes() }
    }

    private func message(_ payload: ByteBufferView, at now: Double, _ context: ChannelHandlerContext) {
        guard let number = BenchRawClient.number(after: BenchSubscriber.offsetKey, in: payload),
              let index = Int(exactly: number), index > 0, index <= expected else { return }
        if seen[index] {
            result.duplicates += 1
            return
        }
        seen[index] = true
        if index < last { result.outOfOrder += 1 }
        last = max(last, index)
        result.received += 1
        if let sent = BenchRawClient.number(after: BenchSubscriber.sentKey, in: payload) { result.latencies.append((now - sent) * 1000) }
        if result.received >= expected { finish(context) }
    }

    override func report(error: (any Error)?) {
        if let error { promise.fail(error) } else { promise.succeed(result) }
    }
}

/// A NATS publisher: one TCP connection that sends `PUB`s (stamped as they are written) and
/// answers the server's `PING`s. NATS does not acknowledge a `PUB`; a publish waits for its
/// bytes to be written.
final class NATSPublisher: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) { self.channel = channel }

    static func connect(port: Int) async throws -> NATSPublisher {
        let channel = try await ClientBootstrap(group: BenchRawClient.publisherGroup.next())
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(NATSPingHandler()) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: "CONNECT {\"verbose\":false,\"pedantic\":false,\"protocol\":1}\r\n")).get()
        return NATSPublisher(channel: channel)
    }

    /// Publishes `body()` (made on the event loop, just before it is written).
    func publish(_ body: @escaping @Sendable () -> [UInt8]) async throws {
        let loop = channel.eventLoop
        let promise = loop.makePromise(of: Void.self)
        loop.execute { [channel] in
            let bytes = body()
            var buffer = ByteBuffer(string: "PUB \(NATSPeer.subject) \(bytes.count)\r\n")
            buffer.writeBytes(bytes)
            buffer.writeString("\r\n")
            channel.writeAndFlush(buffer, promise: promise)
        }
        try await promise.futureResult.get()
    }

    func close() async {
        try? await channel.close()
    }
}

/// Answers nats-server's `PING`s on a publisher's connection; ignores the rest.
final class NATSPingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var buffer = ByteBuffer()

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.writeBuffer(&incoming)
        while let end = buffer.readableBytesView.firstRange(of: [13, 10]) {
            let line = buffer.readableBytesView[buffer.readerIndex..<end.lowerBound]
            if line.elementsEqual(Array("PING".utf8)) { context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "PONG\r\n")), promise: nil) }
            buffer.moveReaderIndex(to: end.upperBound)
        }
        buffer.discardReadBytes()
    }
}
