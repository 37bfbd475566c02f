import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import Synchronization

/// Why WebSocket upgrades were refused, by connection, until the refusal is written.
///
/// hummingbird-websocket answers every refused upgrade with an empty `400`; Greenroom
/// promises `401` and a JSON error instead. The route's `shouldUpgrade` records the error
/// here, and ``UpgradeRefusalWriter``, first in the connection's pipeline, writes it in
/// place of the empty response.
final class UpgradeRefusals: Sendable {
    private let refusals = Mutex<[ObjectIdentifier: GreenroomError]>([:])

    func record(_ error: GreenroomError, for channel: any Channel) {
        let id = ObjectIdentifier(channel)
        refusals.withLock { $0[id] = error }
        channel.closeFuture.whenComplete { _ in self.refusals.withLock { _ = $0.removeValue(forKey: id) } }
    }

    func take(for channel: any Channel) -> GreenroomError? {
        refusals.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// Replaces the empty `400` of a refused upgrade with `401` (or the error's status) and
/// the JSON error body.
final class UpgradeRefusalWriter: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let refusals: UpgradeRefusals
    private var replaced = false

    init(refusals: UpgradeRefusals) {
        self.refusals = refusals
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if replaced {
            promise?.succeed()
            return
        }
        guard let error = refusals.take(for: context.channel) else {
            context.write(data, promise: promise)
            return
        }
        replaced = true
        let http = HTTPGreenroomError(error: error)
        let body = (try? WireCoding.encode(["error": error])) ?? Data()
        var head = "HTTP/1.1 \(http.status.code) \(http.status.reasonPhrase)\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n"
        if http.status == .unauthorized { head += "WWW-Authenticate: Bearer\r\n" }
        head += "\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + body.count)
        buffer.writeString(head)
        buffer.writeBytes(body)
        context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
    }
}

/// The server's child channel: hummingbird-websocket's HTTP/1 + WebSocket upgrade channel
/// with ``UpgradeRefusalWriter`` in front.
struct GreenroomChildChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let inner: HTTP1WebSocketUpgradeChannel
    let refusals: UpgradeRefusals

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(UpgradeRefusalWriter(refusals: refusals), position: .first)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    /// Handles the connection; when the server cancels it (a shutdown that ran past its
    /// grace), closes the channel, which also ends a connection still waiting for the end
    /// of its first request's headers (the upgrade negotiation does not see cancellation).
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withTaskCancellationHandler {
            await inner.handle(value: value, logger: logger)
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the WebSocket upgrade, answering refused upgrades with JSON errors.
    static func greenroom(
        router: Router<GreenroomRequestContext>, configuration: HTTP1WebSocketUpgradeChannel.Configuration, refusals: UpgradeRefusals
    ) -> HTTPServerBuilder {
        let webSocketResponder = router.buildResponder()
        return .init { responder in
            GreenroomChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder, configuration: configuration),
                refusals: refusals)
        }
    }
}
