import Foundation
import NIOCore
import NIOPosix

/// A cheap subscriber for the load generator: a raw WebSocket that subscribes to one
/// stream and reads only what the figures need (offset and send time) from each frame.
struct BenchSubscriber: Sendable {
    struct Result: Sendable {
        var latencies: [Double] = []
        var received = 0
        var duplicates = 0
        var outOfOrder = 0
    }

    let url: String
    let token: String
    let stream: String

    /// Connects, subscribes (counting `ready`), reads until `expected` events or `deadline`.
    func run(expected: Int, ready: Tally, deadline: ContinuousClock.Instant) async throws -> Result {
        let subscribe = BenchRawClient.maskedFrame(opcode: 1, payload: Array(#"{"id":1,"op":"stream.subscribe","args":{"stream":"\#(stream)"}}"#.utf8))
        return try await BenchRawClient.run(url: url, token: token, deadline: deadline) { request, timeout, promise in
            RawSubscriberHandler(request: request, timeout: timeout, subscribe: subscribe, expected: expected, ready: ready, promise: promise)
        }
    }

    static let offsetKey = Array(#""offset":"#.utf8)
    static let sentKey = Array(#""t":"#.utf8)
}

extension TimeAmount {
    /// The time left until `deadline` (zero when it has passed).
    init(until deadline: ContinuousClock.Instant) {
        let wait = deadline - ContinuousClock.now
        self = .nanoseconds(max(wait.components.seconds, 0) * 1_000_000_000 + max(wait.components.attoseconds, 0) / 1_000_000_000)
    }
}

/// The subscriber on the event loop: the subscribe command, then each event's offset and
/// send time.
final class RawSubscriberHandler: RawClientHandler {
    private let subscribe: [UInt8]
    private let expected: Int
    private let ready: Tally
    private let promise: EventLoopPromise<BenchSubscriber.Result>
    private var subscribed = false
    private var last: UInt64 = 0
    private var result = BenchSubscriber.Result()

    init(request: String, timeout: TimeAmount, subscribe: [UInt8], expected: Int, ready: Tally,
         promise: EventLoopPromise<BenchSubscriber.Result>) {
        self.subscribe = subscribe
        self.expected = expected
        self.ready = ready
        self.promise = promise
        super.init(request: request, timeout: timeout)
    }

    override func didUpgrade(_ context: ChannelHandlerContext) {
        send(subscribe, context)
    }

    override func didReceive(text view: ByteBufferView, _ context: ChannelHandlerContext) {
        let now = Date().timeIntervalSince1970
        if !subscribed {
            if BenchRawClient.number(after: BenchRawClient.replyKey, in: view) != nil {
                subscribed = true
                _ = ready.add()
            }
            return
        }
        guard let offset = BenchRawClient.number(after: BenchSubscriber.offsetKey, in: view) else { return }
        let value = UInt64(offset)
        if value <= last {
            result.duplicates += value == last ? 1 : 0
            result.outOfOrder += value < last ? 1 : 0
            return
        }
        if value != last + 1 && last != 0 { result.outOfOrder += 1 }
        last = value
        result.received += 1
        if let sent = BenchRawClient.number(after: BenchSubscriber.sentKey, in: view) { result.latencies.append((now - sent) * 1000) }
        if result.received >= expected { finish(context) }
    }

    override func report(error: (any Error)?) {
        if let error { promise.fail(error) } else { promise.succeed(result) }
    }
}
