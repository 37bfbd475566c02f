import Foundation
import NIOCore

/// A raw WebSocket that sends `message.send` commands to one channel at a steady `rate`
/// (every millisecond, the commands due by then), whatever the replies say, until its
/// deadline; it counts the replies: stored, refused with `rateLimited`, or another error.
final class PacedSenderHandler: RawClientHandler {
    struct Result: Sendable {
        var sent = 0
        var stored = 0
        var rateLimited = 0
        var otherErrors = 0
    }

    private let channelId: String
    private let rate: Double
    private let promise: EventLoopPromise<Result>
    private var result = Result()
    private var started: NIODeadline?
    private static let rateLimitedKey = Array(#""rateLimited""#.utf8)

    /// Connects and sends at `rate` until `deadline`; returns the counts.
    static func run(url: String, token: String, channelId: String, rate: Double, deadline: ContinuousClock.Instant) async throws -> Result {
        try await BenchRawClient.run(url: url, token: token, deadline: deadline) { request, timeout, promise in
            PacedSenderHandler(request: request, timeout: timeout, channelId: channelId, rate: rate, promise: promise)
        }
    }

    init(request: String, timeout: TimeAmount, channelId: String, rate: Double, promise: EventLoopPromise<Result>) {
        self.channelId = channelId
        self.rate = rate
        self.promise = promise
        super.init(request: request, timeout: timeout)
    }

    override func didUpgrade(_ context: ChannelHandlerContext) {
        started = .now()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(1)) { task in
            let (handler, context) = loopBound.value
            guard !handler.done else {
                task.cancel()
                return
            }
            handler.sendDue(context)
        }
    }

    /// Sends the commands due by now at `rate` since the upgrade.
    private func sendDue(_ context: ChannelHandlerContext) {
        guard let started else { return }
        let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        let due = Int(elapsed * rate)
        guard due > result.sent else { return }
        while result.sent < due {
            result.sent += 1
            let command = #"{"id":\#(result.sent),"op":"message.send","args":{"channelId":"\#(channelId)","text":"flood \#(result.sent)"}}"#
            send(BenchRawClient.maskedFrame(opcode: 1, payload: Array(command.utf8)), context, flush: false)
        }
        context.flush()
    }

    override func didReceive(text view: ByteBufferView, _ context: ChannelHandlerContext) {
        guard BenchRawClient.number(after: BenchRawClient.replyKey, in: view) != nil else { return }
        if !BenchRawClient.contains(BenchRawClient.errorKey, in: view) {
            result.stored += 1
        } else if BenchRawClient.contains(Self.rateLimitedKey, in: view) {
            result.rateLimited += 1
        } else {
            result.otherErrors += 1
        }
    }

    override func report(error: (any Error)?) {
        if let error { promise.fail(error) } else { promise.succeed(result) }
    }
}
