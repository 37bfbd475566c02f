import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOSSL

extension ServerCore {
    /// The WebSocket's path.
    static let connectPath = "/v1/connect"

    /// The token of a request: `Authorization: Bearer TOKEN` or `?token=TOKEN` (browsers
    /// cannot set headers on a WebSocket).
    func token(authorization: String?, uri: URI) throws -> String {
        if let header = authorization {
            guard let token = RequestParsing.bearer(header) else {
                throw GreenroomError(.invalidToken, "the Authorization header must be 'Bearer TOKEN'")
            }
            return token
        }
        if let token = uri.queryParameters["token"], !token.isEmpty { return String(token) }
        throw GreenroomError(.notAuthenticated, "connect with a token: Authorization: Bearer TOKEN, or ?token=TOKEN")
    }

    /// The identity of a request's token, within its user's budget (uploads for creating a
    /// video and for `/v1/uploads/…` changes, reads for `GET` and `HEAD`, writes otherwise);
    /// refused while the server shuts down.
    func authenticate(_ request: Request) async throws -> Identity {
        let identity = try await authenticate(authorization: request.headers[.authorization], uri: request.uri)
        try rateLimiter.check(identity, Self.operationClass(of: request))
        return identity
    }

    /// The budget a REST request with a client token counts against.
    static func operationClass(of request: Request) -> OperationClass {
        let reading = request.method == .get || request.method == .head
        let path = request.uri.path
        if !reading, path.hasPrefix("/v1/uploads/") || (request.method == .post && (path == "/v1/videos" || path == "/v1/videos/")) {
            return .uploads
        }
        return reading ? .reads : .writes
    }

    /// The identity of a token, unless it was revoked (``TokenRevocation``).
    func authenticate(authorization: String?, uri: URI) async throws -> Identity {
        let identity = try await tokens.verify(try token(authorization: authorization, uri: uri))
        if let scope = identity.scope {
            let path = uri.path.removingPercentEncoding ?? uri.path
            guard path.hasPrefix(scope) || uri.path.hasPrefix(scope) else {
                throw GreenroomError(.invalidToken, "this token is for \(scope) only")
            }
        }
        try await TokenRevocation.check(identity, in: storage)
        if draining.load(ordering: .relaxed) {
            throw GreenroomError(.unavailable, "the server is shutting down; reconnect shortly")
        }
        return identity
    }

    /// Checks a connection request before the upgrade: its token, and its user, which
    /// exists before the client learns it is connected, so that others may invite it at once.
    ///
    /// A client that comes back at once (its connection cut) is let in when this node has
    /// finished with its previous connection (for two seconds at most): others see it
    /// leave, or become a reconnecting host, before it comes back, never the other way round.
    ///
    /// A user holds at most ``ServerConfiguration/connectionsPerUser`` connections on this
    /// node: past it the request is refused with `rateLimited`. With `reserving`, a place is
    /// held for the connection until its session starts.
    func acceptConnection(authorization: String?, uri: URI, reserving: Bool = true) async throws -> Identity {
        let identity = try await authenticate(authorization: authorization, uri: uri)
        let now = Date()
        _ = try await storage.insertUserIfMissing(User(id: identity.userId, nickname: identity.userId, createdAt: now, updatedAt: now))
        let deadline = ContinuousClock.now + .seconds(2)
        while connections.isClosing(user: identity.userId), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let limit = configuration.connectionsPerUser
        guard connections.reserve(user: identity.userId, limit: limit, holding: reserving) else {
            throw GreenroomError(rateLimited: "\(identity.userId) holds \(limit) connections to this node, the most one user may",
                                 retryAfterMs: 5_000)
        }
        return identity
    }

    /// `GET /v1/connect` without an upgrade: 200 when an upgrade would be accepted, else
    /// the JSON error (a refused upgrade gets the same answer; see ``GreenroomChildChannel``).
    func addConnectRoute(_ router: Router<GreenroomRequestContext>) {
        router.get(RouterPath(Self.connectPath)) { request, _ -> Response in
            _ = try await self.acceptConnection(authorization: request.headers[.authorization], uri: request.uri, reserving: false)
            return Response(status: .ok)
        }
    }

    /// On the event loop, as the upgrade completes: the connection's state and handlers
    /// (``WireHandler`` next to the socket or its TLS, ``ClientSocketHandler`` after the WebSocket
    /// codec), and the timer that closes it when its token expires.
    func startSession(on channel: any Channel, identity: Identity) throws {
        let wire = WireHandler(interval: .milliseconds(Int64(configuration.heartbeatInterval * 1000)))
        let connection = ClientConnection(
            id: connections.nextId(), identity: identity, channel: channel, wire: NIOLoopBound(wire, eventLoop: channel.eventLoop),
            budget: rateLimiter.budget(for: identity), limit: configuration.outboundQueueLimit,
            byteLimit: configuration.outboundQueueBytes, metrics: metrics)
        // The handler lets go of the connection when it is removed, as the socket closes.
        wire.onWritable = { connection.socketWritable() }
        let queue = CommandQueue(connection: connection, core: self)
        let remaining = max(identity.expiresAt.timeIntervalSinceNow, 0)
        let expiry = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(remaining * 1000))) {
            connection.requestClose(.tokenExpired, reason: "token expired: reconnect with a fresh token")
        }
        do {
            // Next to the socket, or next to TLS: the wire handler reads and writes plaintext bytes.
            if let tls = try? channel.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self) {
                try channel.pipeline.syncOperations.addHandler(wire, position: .after(tls))
            } else {
                try channel.pipeline.syncOperations.addHandler(wire, position: .first)
            }
            try channel.pipeline.syncOperations.addHandler(ClientSocketHandler(queue: queue, expiry: expiry) { [self] in
                connections.markClosing(connection)
                Task { await self.endSession(queue) }
            })
        } catch {
            expiry.cancel()
            throw error
        }
        connections.add(connection)
        metrics.connectionChanged(by: 1)
        let clientId = roster.clientId(connectionId: connection.id)
        for capability in capabilities { capability.connectionStarted(userId: identity.userId, clientId: clientId) }
    }

    /// After the socket closed: commands still running finish first (their replies are
    /// dropped; what they stored stays stored), then the connection leaves the hub, its
    /// presence and its rosters.
    func endSession(_ queue: CommandQueue) async {
        let connection = queue.connection
        await queue.close()
        for stream in connection.subscribedStreams { hub.remove(connection, from: stream) }
        connection.finish()
        await presences.leaveAll(connection, reason: "disconnected")
        await presences.closeRoster(connection)
        let clientId = roster.clientId(connectionId: connection.id)
        for capability in capabilities { await capability.connectionEnded(clientId: clientId) }
        connections.remove(connection)
        metrics.connectionChanged(by: -1)
    }
}
