import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The server's child channel: HTTP/1 for REST, and at `/v1/connect` the WebSocket upgrade.
///
/// An upgraded connection is served on its event loop by channel handlers
/// (``ClientSocketHandler``), with no task of its own: a task runs only while the
/// connection has commands to run. An idle connection therefore costs its socket, its
/// handlers and its state, not a suspended task's stack (which would be most of its memory).
/// A refused upgrade is answered with `401` (or the error's status) and the JSON error.
struct GreenroomChildChannel: ServerChildChannel, HTTPChannelHandler {
    /// What the first request turned the connection into.
    enum Negotiated: Sendable {
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>, GreenroomError)
        case webSocket
    }

    /// The negotiation's outcome, once the first request's head has arrived.
    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let core: ServerCore

    /// Small first reads: most connections send one upgrade request and then little; the
    /// receive buffer kept per connection grows again for a client that sends more.
    static let receiveAllocator = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65_536)

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveAllocator)
            let core = self.core
            core.openChannels.add(channel)
            // Until its first request's head has arrived (and, for the WebSocket, its token
            // was checked) a connection is a stranger's: there may be at most so many (then
            // the server accepts no more for a while), and each has so long to get there.
            core.openChannels.admitPending(channel, limit: core.configuration.maxPendingConnections)
            let headerTimeout = core.configuration.headerTimeout
            let deadline = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(headerTimeout * 1000))) {
                core.metrics.headerTimedOut()
                channel.close(promise: nil)
            }
            let refusal = NIOLoopBoundBox<GreenroomError?>(nil, eventLoop: channel.eventLoop)
            let accepted = NIOLoopBoundBox<Identity?>(nil, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<Negotiated>(
                maxFrameSize: Limits.maxClientFrameBytes,
                shouldUpgrade: { channel, head in
                    let uri = URI(head.uri)
                    guard uri.path == Sessions.connectPath else { return channel.eventLoop.makeSucceededFuture(nil) }
                    let authorization = head.headers.first(name: "Authorization")
                    return channel.eventLoop.makeFutureWithTask {
                        do {
                            return .success(try await core.sessions.accept(authorization: authorization, uri: uri))
                        } catch {
                            return .failure(GreenroomError.reported(error, to: core.logger))
                        }
                    }.map { (result: Result<Identity, GreenroomError>) -> HTTPHeaders? in
                        switch result {
                        case .success(let identity):
                            accepted.value = identity
                            return HTTPHeaders()
                        case .failure(let error):
                            refusal.value = error
                            return nil
                        }
                    }
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard let identity = accepted.value else { throw ChannelError.inappropriateOperationForState }
                        try core.sessions.start(on: channel, identity: identity)
                        return .webSocket
                    }
                })
            let upgrade = NIOTypedHTTPServerUpgradeConfiguration<Negotiated>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: core.configuration.tlsCertificatePath != nil))
                        let idle = core.configuration.idleTimeout
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: .milliseconds(Int64(idle * 1000)), logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        if let error = refusal.value { return .refused(http, error) }
                        return .http(http)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<Negotiated>(upgradeConfiguration: upgrade)
            configuration.enablePipelining = false  // NIOAsyncChannel reads one request at a time
            configuration.enableErrorHandling = false  // Hummingbird answers malformed requests
            configuration.enableResponseHeaderValidation = false  // HTTPTypes validated them
            let negotiated = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            negotiated.whenComplete { _ in
                deadline.cancel()
                core.openChannels.negotiated(channel)
            }
            return Value(negotiated: negotiated, channel: channel)
        }
    }

    /// Serves HTTP requests, writes a refusal, or returns at once for a WebSocket (its
    /// handlers serve it). When the server cancels it (a shutdown that ran past its grace),
    /// closes the channel, which also ends a connection still waiting for the end of its
    /// first request's headers.
    func handle(value: Value, logger: Logger) async {
        let channel = value.channel
        await withTaskCancellationHandler {
            do {
                switch try await value.negotiated.get() {
                case .http(let http):
                    await handleHTTP(asyncChannel: http, logger: logger)
                case .refused(let http, let error):
                    await Self.writeRefusal(error, on: http)
                case .webSocket:
                    return
                }
            } catch {
                logger.trace("connection ended before its first request: \(error)")
            }
        } onCancel: {
            channel.close(promise: nil)
        }
    }

    /// Answers a refused upgrade with the error's status and JSON body, then closes.
    static func writeRefusal(_ error: GreenroomError, on http: NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>) async {
        let failure = HTTPGreenroomError(error: error)
        let body = (try? WireCoding.encode(["error": error])) ?? Data()
        var fields: HTTPFields = [.contentType: "application/json", .contentLength: "\(body.count)", .connection: "close"]
        if failure.status == .unauthorized { fields[.wwwAuthenticate] = "Bearer" }
        try? await http.executeThenClose { _, outbound in
            try await outbound.write(contentsOf: [
                .head(HTTPResponse(status: failure.status, headerFields: fields)),
                .body(ByteBuffer(data: body)),
                .end(nil),
            ])
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with Greenroom's WebSocket upgrade at `/v1/connect`.
    static func greenroom(core: ServerCore) -> HTTPServerBuilder {
        .init { responder in GreenroomChildChannel(responder: responder, core: core) }
    }
}
