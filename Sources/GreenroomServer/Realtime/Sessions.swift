import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOSSL

/// This node's WebSocket sessions: admits a connection request (its token, its user, its
/// user's cap of connections), starts the session on the connection's event loop as the
/// upgrade completes, and ends it after the socket closed.
final class Sessions: Sendable {
    /// The WebSocket's path.
    static let connectPath = "/v1/connect"

    private let authenticator: Authenticator
    private let storage: any GreenroomStorage
    private let events: EventLog
    private let connections: ConnectionRegistry
    private let configuration: GreenroomCore.ServerConfiguration
    private let rateLimiter: RateLimiter
    private let metrics: ServerMetrics
    private let roster: Roster
    private let hub: EventHub
    private let presences: Presences
    private let capabilities: [any Capability]
    private let commands: CommandRouter

    init(authenticator: Authenticator, storage: any GreenroomStorage, events: EventLog, connections: ConnectionRegistry,
         configuration: GreenroomCore.ServerConfiguration, rateLimiter: RateLimiter, metrics: ServerMetrics, roster: Roster, hub: EventHub,
         presences: Presences, capabilities: [any Capability], commands: CommandRouter) {
        self.authenticator = authenticator
        self.storage = storage
        self.events = events
        self.connections = connections
        self.configuration = configuration
        self.rateLimiter = rateLimiter
        self.metrics = metrics
        self.roster = roster
        self.hub = hub
        self.presences = presences
        self.capabilities = capabilities
        self.commands = commands
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
    func accept(authorization: String?, uri: URI, reserving: Bool = true) async throws -> Identity {
        let identity = try await authenticator.authenticate(authorization: authorization, uri: uri)
        try await storeUserIfMissing(identity.userId)
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

    /// Stores the user a token names the first time it connects, through the node's one
    /// writer (a read first: a known user costs no write).
    private func storeUserIfMissing(_ userId: String) async throws {
        guard try await storage.user(id: userId) == nil else { return }
        let now = Date()
        let user = User(id: userId, nickname: userId, createdAt: now, updatedAt: now)
        try await events.transact { transaction in
            if try await transaction.user(id: userId) == nil { _ = try await transaction.insertUser(user) }
        }
    }

    /// `GET /v1/connect` without an upgrade: 200 when an upgrade would be accepted, else
    /// the JSON error (a refused upgrade gets the same answer; see ``GreenroomChildChannel``).
    func addConnectRoute(_ router: Router<GreenroomRequestContext>) {
        router.get(RouterPath(Self.connectPath)) { request, _ -> Response in
            _ = try await self.accept(authorization: request.headers[.authorization], uri: request.uri, reserving: false)
            return Response(status: .ok)
        }
    }

    /// On the event loop, as the upgrade completes: the connection's state and handlers
    /// (``WireHandler`` next to the socket or its TLS, ``ClientSocketHandler`` after the WebSocket
    /// codec), and the timer that closes it when its token expires.
    func start(on channel: any Channel, identity: Identity) throws {
        let wire = WireHandler(interval: .milliseconds(Int64(configuration.heartbeatInterval * 1000)))
        let connection = ClientConnection(
            id: connections.nextId(), identity: identity, channel: channel, wire: NIOLoopBound(wire, eventLoop: channel.eventLoop),
            drainer: hub.drainer(for: channel.eventLoop), budget: rateLimiter.budget(for: identity), limit: configuration.outboundQueueLimit,
            byteLimit: configuration.outboundQueueBytes, metrics: metrics)
        // The handler lets go of the connection when it is removed, as the socket closes.
        wire.onWritable = { connection.socketWritable() }
        let clientId = roster.clientId(connectionId: connection.id)
        let caller = Caller(identity: identity, clientId: clientId, session: ConnectionSession(connection: connection))
        let queue = CommandQueue(connection: connection, caller: caller, commands: commands, metrics: metrics)
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
                Task { await self.end(queue) }
            })
        } catch {
            expiry.cancel()
            throw error
        }
        connections.add(connection)
        metrics.connectionChanged(by: 1)
        for capability in capabilities { capability.connectionStarted(userId: identity.userId, clientId: clientId) }
    }

    /// After the socket closed: commands still running finish first (their replies are
    /// dropped; what they stored stays stored), then the connection's subscriptions end and
    /// it leaves its presence and its rosters.
    private func end(_ queue: CommandQueue) async {
        let connection = queue.connection
        await queue.close()
        connection.finish()
        await presences.leaveAll(queue.caller, ConnectionSession(connection: connection), reason: "disconnected")
        await presences.closeRoster(queue.caller)
        for capability in capabilities { await capability.connectionEnded(clientId: queue.caller.clientId) }
        connections.remove(connection)
        metrics.connectionChanged(by: -1)
    }
}
