import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdWebSocket
import NIOCore

extension ServerCore {
    /// The token of a connection request: `Authorization: Bearer TOKEN` or `?token=TOKEN`
    /// (browsers cannot set headers on a WebSocket).
    func token(from request: Request) throws -> String {
        if let header = request.headers[.authorization] {
            guard header.lowercased().hasPrefix("bearer ") else {
                throw GreenroomError(.invalidToken, "the Authorization header must be 'Bearer TOKEN'")
            }
            return String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        if let token = request.uri.queryParameters["token"], !token.isEmpty { return String(token) }
        throw GreenroomError(.notAuthenticated, "connect with a token: Authorization: Bearer TOKEN, or ?token=TOKEN")
    }

    func authenticate(_ request: Request) async throws -> Identity {
        let identity = try await tokens.verify(try token(from: request))
        if draining.load(ordering: .relaxed) {
            throw GreenroomError(.unavailable, "the server is shutting down; reconnect shortly")
        }
        return identity
    }

    /// `GET /v1/connect`: the WebSocket. The token is checked before the upgrade; a refused
    /// request gets 401 and the JSON error (a plain GET with a good token gets 200, which is
    /// how a client learns why an upgrade was refused).
    func addConnectRoute(_ router: Router<GreenroomRequestContext>) {
        router.ws("/v1/connect") { request, context in
            do {
                let identity = try await self.authenticate(request)
                // The user exists before the client learns it is connected, so that others
                // may invite it at once.
                _ = try await self.users.ensure(id: identity.userId)
            } catch let error as GreenroomError {
                if request.headers[.upgrade]?.lowercased() == "websocket" {
                    self.upgradeRefusals.record(error, for: context.channel)
                }
                throw error
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            try await self.serve(inbound: inbound, outbound: outbound, context: context)
        }
    }

    func serve(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, context: WebSocketRouterContext<GreenroomRequestContext>) async throws {
        let identity = try await authenticate(context.request)
        let connection = ClientConnection(
            id: connections.nextId(), identity: identity, channel: context.requestContext.channel,
            limit: configuration.outboundQueueLimit, metrics: metrics)
        connections.add(connection)
        metrics.connectionChanged(by: 1)
        // Below, the read loop leaves the hub and finishes the connection on every path.
        defer {
            connections.remove(connection)
            metrics.connectionChanged(by: -1)
        }
        connection.attach(outbound)
        let channel = connection.channel
        let heartbeat = TimeAmount.milliseconds(Int64(configuration.heartbeatInterval * 1000))
        try? await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(HeartbeatHandler(interval: heartbeat), position: .first)
        }.get()
        // The token's expiry is a timer on the event loop, not a task per connection.
        let remaining = max(identity.expiresAt.timeIntervalSinceNow, 0)
        let expiry = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(remaining * 1000))) {
            connection.requestClose(.tokenExpired, reason: "token expired: reconnect with a fresh token")
        }
        defer { expiry.cancel() }
        // A failed read (a message over the limit, say) is rethrown after clean-up so
        // that the WebSocket handler closes with its code (1009 for a message too big).
        var readError: (any Error)?
        let pipeline = CommandPipeline()
        do {
            for try await message in inbound.messages(maxSize: Limits.maxClientFrameBytes) {
                let text: ByteBuffer = switch message {
                case .text(let string): ByteBuffer(string: string)
                case .binary(let buffer): buffer
                }
                await commands.handle(text, on: connection, core: self, pipeline: pipeline)
            }
        } catch {
            logger.debug("connection \(connection.id) ended: \(error)")
            readError = error
        }
        // Messages still being stored finish first (their replies are dropped if the
        // socket is gone; what they stored stays stored).
        await pipeline.waitUntilIdle()
        for stream in connection.subscribedStreams { hub.remove(connection, from: stream) }
        connection.finish()
        await leaveAllPresence(connection, reason: "disconnected")
        await closeRoster(connection)
        if let readError { throw readError }
    }
}
