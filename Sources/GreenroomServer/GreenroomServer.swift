import Foundation
import GreenroomProtocol
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals
import Synchronization

/// A Greenroom server: REST and one WebSocket per client, over embedded SQLite storage.
///
/// ```swift
/// let server = try await GreenroomServer.start(configuration: config)
/// print("listening on", server.port)
/// try await server.shutdown()
/// ```
/// `greenroom serve` runs one until SIGINT or SIGTERM with ``run(configuration:logger:)``.
public final class GreenroomServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// The server's settings.
    public let configuration: GreenroomCore.ServerConfiguration
    /// The app secret and API key in use.
    public let secrets: Secrets
    let core: ServerCore
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, core: ServerCore, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.configuration = core.configuration
        self.secrets = core.secrets
        self.core = core
        self.group = group
        self.task = task
    }

    /// Whether the server speaks HTTPS and `wss://` (``ServerConfiguration/tlsCertificatePath``).
    public var isSecure: Bool { configuration.tlsCertificatePath != nil }
    /// The HTTP base URL, e.g. `http://127.0.0.1:8080` (`https://` with TLS; an IPv6 host
    /// in brackets, `http://[::1]:8080`).
    public var baseURL: URL { url(scheme: isSecure ? "https" : "http") }
    /// The WebSocket URL clients connect to, e.g. `ws://127.0.0.1:8080/v1/connect` (`wss://` with TLS).
    public var webSocketURL: URL { url(scheme: isSecure ? "wss" : "ws", path: Sessions.connectPath) }

    /// A URL of this server: the host it listens on (an IPv6 address in brackets), its port.
    private func url(scheme: String, path: String = "") -> URL {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        // The host was bound, so it is a name or an address; were it neither, the loopback
        // address says where this process listens just as well.
        return URL(string: "\(scheme)://\(host):\(port)\(path)") ?? URL(string: "\(scheme)://127.0.0.1:\(port)\(path)")!
    }
    /// The number of open client connections.
    public var connectionCount: Int { core.connections.count }
    /// The server's metrics.
    public var metrics: ServerMetrics { core.metrics }

    /// Issues a client token signed with this server's app secret.
    public func token(userId: String, ttl: TimeInterval = 3600, grants: [String] = []) async throws -> String {
        try await core.tokens.issue(userId: userId, ttl: ttl, grants: grants)
    }

    /// Appends an event to a stream, as the REST call `POST /v1/streams/{stream}/events`
    /// does, for an app that embeds the server. Returns once the event is durable and
    /// handed to this node's subscribers.
    @discardableResult
    public func publish(stream: String, type: String = "app.event", data: RawJSON, idempotencyKey: String? = nil) async throws -> StreamEvent {
        guard StreamName.isValid(stream) else { throw GreenroomError(.invalidParameterValue, "invalid stream name \(stream)") }
        return try await core.events.append(EventAppend(stream: stream, type: type, data: data, idempotencyKey: idempotencyKey)).event
    }

    /// Disconnects clients: with `code`, politely (a close frame that tells the client what
    /// to do); without, by cutting the socket as a failing network would. `userId` limits it
    /// to one user's connections. Returns how many were disconnected.
    @discardableResult
    public func disconnectClients(userId: String? = nil, code: CloseCode? = nil) -> Int {
        core.connections.disconnect(userId: userId, code: code, reason: "disconnected by the operator")
    }

    /// Starts a server in the background and returns once it accepts connections.
    ///
    /// - Parameter signals: signals that shut it down gracefully (none by default).
    public static func start(
        configuration: GreenroomCore.ServerConfiguration,
        logger: Logger = Logger(label: "greenroom"),
        signals: [UnixSignal] = []
    ) async throws -> GreenroomServer {
        try configuration.validate()
        let tls = try configuration.serverTLS()
        let secrets = try Secrets.loadOrCreate(in: configuration.dataDirectory)
        let backend = try await StorageBackend.open(configuration, logger: logger)
        let storage = backend.storage
        do {
            try await storage.migrate()
        } catch {
            try? await storage.close()
            throw GreenroomServerError.storage("cannot migrate the database: \(error)")
        }
        let tokens = await TokenService(secret: secrets.appSecret, previousSecret: secrets.previousAppSecret,
                                        maxLifetime: configuration.maxTokenLifetime)
        if secrets.previousAppSecret != nil || secrets.previousAPIKey != nil {
            logger.notice("the previous app secret or API key (*.previous in the data directory) is still accepted: remove it once nothing uses it")
        }
        let media: MediaBackend
        do {
            media = try MediaBackend.open(configuration, logger: logger)
        } catch {
            try? await storage.close()
            throw error
        }
        let tracing: TracingBackend?
        do {
            tracing = try TracingBackend.make(configuration.tracing, logger: logger)
        } catch {
            try? await storage.close()
            throw GreenroomServerError.invalidConfiguration("cannot export traces to \(configuration.tracing.endpoint ?? ""): \(error)")
        }
        let core = ServerCore(configuration: configuration, backend: backend, media: media, tokens: tokens, secrets: secrets,
                              tracer: tracing?.tracer, logger: logger)

        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let router = core.buildRouter()
        let server: HTTPServerBuilder
        do {
            server = try tls.map { try .tls(.greenroom(core: core), tlsConfiguration: $0) } ?? .greenroom(core: core)
        } catch {
            try? await storage.close()
            throw GreenroomServerError.invalidConfiguration("cannot use the TLS certificate and key: \(error)")
        }
        let app = Application(
            router: router,
            server: server,
            // A deep accept queue: after a restart every client reconnects at once, and a SYN
            // dropped from a full queue is retried only a second or more later.
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Greenroom", backlog: 4096),
            onServerRunning: { [readiness = core.readiness] channel in
                readiness.listening()
                portContinuation.yield(channel.localAddress?.port ?? configuration.port)
                portContinuation.finish()
            },
            logger: logger)
        // Shut down in reverse order: the node turns unready (and waits for the load
        // balancer), clients are told to reconnect, then HTTP, then the
        // retention sweep, then the event writer drains, then storage closes, and last the
        // tracer sends the spans left.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = tracing.map { [.init(service: $0.service)] } ?? []
        services.append(.init(service: StorageService(core: core)))
        if let broker = core.broker.service { services.append(.init(service: broker)) }
        let group = ServiceGroup(configuration: .init(
            services: services + [
                .init(service: core.events),
                .init(service: RetentionService(core: core)),
                .init(service: PresenceService(core: core)),
                .init(service: NodeHeartbeatService(core: core)),
            ] + core.capabilityServices.map { .init(service: $0) } + [
                .init(service: BoundedShutdown(
                    inner: app, grace: .seconds(max(configuration.shutdownGrace, 1)), what: "the HTTP server", logger: logger,
                    afterwards: { [openChannels = core.openChannels] in openChannels.closeAll() })),
                .init(service: ConnectionDrainService(core: core)),
                .init(service: ReadinessService(core: core, signals: signals)),
            ],
            gracefulShutdownSignals: signals,
            logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            _ = try await task.value
            throw GreenroomServerError.invalidConfiguration("the server stopped before it listened")
        }
        return GreenroomServer(port: port, core: core, group: group, task: task)
    }

    /// Shuts down gracefully: the node turns unready for
    /// ``ServerConfiguration/unreadyDelay``, clients are told to reconnect, queued writes are
    /// stored, storage is closed. Returns when everything has stopped. Called while a shutdown
    /// (begun by an earlier call or a signal) waits out the unready delay, it ends the wait
    /// at once.
    public func shutdown() async throws {
        core.readiness.shutdownRequested()
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Waits until the server stops (after a signal or ``shutdown()``).
    public func waitUntilStopped() async throws {
        try await task.value
    }
}
