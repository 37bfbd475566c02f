import Foundation
import NIOCore

/// A cheap chat sender for the store benchmark: a raw WebSocket that keeps `window`
/// `message.send` commands in flight on one channel, taking message numbers from a shared
/// counter until `total` are taken, and counts the replies (an `error` in a reply is a
/// failure). Nothing is decoded: a reply is recognised by its `re` key.
final class RawSenderHandler: RawClientHandler {
    struct Result: Sendable {
        var acknowledged = 0
        var failed = 0
        /// Commands sent whose reply never came (the connection closed or timed out).
        var unanswered = 0
    }

    private let channelId: String
    private let window: Int
    private let next: Tally
    private let total: Int
    private let promise: EventLoopPromise<Result>
    private var inFlight = 0
    private var commandId = 0
    private var result = Result()

    /// Connects and sends until the shared counter passes `total`; returns this sender's counts.
    static func run(url: String, token: String, channelId: String, window: Int, next: Tally, total: Int,
                    deadline: ContinuousClock.Instant) async throws -> Result {
        try await BenchRawClient.run(url: url, token: token, deadline: deadline) { request, timeout, promise in
            RawSenderHandler(request: request, timeout: timeout, channelId: channelId, window: window, next: next, total: total, promise: promise)
        }
    }

    init(request: String, timeout: TimeAmount, channelId: String, window: Int, next: Tally, total: Int, promise: EventLoopPromise<Result>) {
        self.channelId = channelId
        self.window = window
        self.next = next
        self.total = total
        self.promise = promise
        super.init(request: request, timeout: timeout)
    }

    override func didUpgrade(_ context: ChannelHandlerContext) {
        for _ in 0..<window where sendNext(context, flush: false) {}
        context.flush()
        if inFlight == 0 { finish(context) }
    }

    override func didReceive(text view: ByteBufferView, _ context: ChannelHandlerContext) {
        guard BenchRawClient.number(after: BenchRawClient.replyKey, in: view) != nil else { return }
        inFlight -= 1
        if BenchRawClient.contains(BenchRawClient.errorKey, in: view) {
            result.failed += 1
        } else {
            result.acknowledged += 1
        }
        if !sendNext(context, flush: true), inFlight == 0 { finish(context) }
    }

    /// Sends the next message, if any is left; returns whether it sent one.
    private func sendNext(_ context: ChannelHandlerContext, flush: Bool) -> Bool {
        let index = next.add()
        guard index <= total else { return false }
        commandId += 1
        let command = #"{"id":\#(commandId),"op":"message.send","args":{"channelId":"\#(channelId)","text":"message \#(index)","extraData":{"n":\#(index)},"idempotencyKey":"m\#(index)"}}"#
        send(BenchRawClient.maskedFrame(opcode: 1, payload: Array(command.utf8)), context, flush: flush)
        inFlight += 1
        return true
    }

    override func report(error: (any Error)?) {
        if let error {
            promise.fail(error)
        } else {
            result.unanswered = inFlight
            promise.succeed(result)
        }
    }
}
