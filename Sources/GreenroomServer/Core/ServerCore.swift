import Foundation
import GreenroomProtocol
import Logging
import ServiceLifecycle
import Synchronization

/// The composition root: the realtime core that knows no product (storage and its broker,
/// the event log, the hub, connections, tokens, metrics) and the capabilities registered
/// on it. Everything a request or a connection uses is reached from here.
final class ServerCore: Sendable {
    let configuration: ServerConfiguration
    let storage: any GreenroomStorage
    let hub: EventHub
    let events: EventLog
    /// Carries stored events to the subscribers of every node.
    let broker: any Broker
    let tokens: TokenService
    let metrics: ServerMetrics
    let secrets: Secrets
    let logger: Logger
    let roster: Roster
    let connections: ConnectionRegistry
    /// Every accepted connection not yet closed, HTTP and WebSocket.
    let openChannels = OpenChannels()
    /// Live media through the SFU.
    let media: MediaPlane
    /// The SFU in use (and the Janus this server runs, if it runs one).
    let mediaBackend: MediaBackend
    /// The HLS livestreams this node runs.
    let livestreams: LivestreamEngine
    /// Set when graceful shutdown begins: new connections are refused with `unavailable`.
    let draining = Atomic<Bool>(false)
    /// This node's id, unique among the nodes sharing a database.
    let nodeId: String
    /// The product's capabilities, and those owning a kind of stream by that kind.
    let capabilities: [any Capability]
    let owners: [StreamKind: any Capability]
    /// Connections' subscriptions, and who may read a stream.
    let subscriptions: StreamSubscriptions
    /// Clients' presence and the capabilities' rosters on streams.
    let presences: Presences
    /// Every WebSocket operation: the core's own and the capabilities'.
    let commands: CommandRouter
    /// Each user's budget of commands and requests on this node.
    let rateLimiter: RateLimiter

    /// The capabilities this server offers: the one list to change when adding one.
    static func makeCapabilities(_ core: CoreServices) -> [any Capability] {
        [
            UsersCapability(core),
            AppStreamsCapability(core),
            ChatCapability(core),
            LiveEventsCapability(core),
            MeetingsCapability(core),
            VideosCapability(core),
            MediaCapability(core),
            WebhooksCapability(core),
            PushCapability(core),
            ConsoleCapability(core),
        ]
    }

    init(configuration: ServerConfiguration, backend: StorageBackend, media mediaBackend: MediaBackend = .none,
         tokens: TokenService, secrets: Secrets, logger: Logger) {
        let storage = backend.storage
        let nodeId = RandomHex.string(bytes: 6)
        let metrics = ServerMetrics()
        let hub = EventHub()
        let broker = backend.makeBroker(hub, metrics, logger)
        let outbox = Outbox(pushTypes: configuration.push.isEnabled ? PushSender.types : [])
        let events = EventLog(storage: storage, broker: broker, metrics: metrics, retentionCount: configuration.retentionCount, logger: logger,
                              outbox: outbox, queueLimit: configuration.writeQueueLimit,
                              queueWait: .milliseconds(Int64(configuration.writeQueueWait * 1000)))
        let roster = Roster(nodeId: nodeId, ttl: configuration.presenceTTL)
        let connections = ConnectionRegistry()
        hub.watch(type: TokenRevocation.eventType) { event in
            guard let (userId, notBefore) = TokenRevocation.revocation(in: event) else { return }
            connections.revoke(user: userId, issuedUpTo: notBefore)
        }
        self.connections = connections
        self.rateLimiter = RateLimiter(configuration.rateLimits, perConnection: configuration.connectionRateLimits.over(configuration.rateLimits))
        self.nodeId = nodeId
        self.configuration = configuration
        self.storage = storage
        self.tokens = tokens
        self.secrets = secrets
        self.logger = logger
        self.metrics = metrics
        self.hub = hub
        self.broker = broker
        self.events = events
        self.roster = roster
        let media = MediaPlane(gateways: mediaBackend.gateways, storage: storage, events: events, logger: logger)
        self.media = media
        self.mediaBackend = mediaBackend
        let livestreams = LivestreamEngine(
            media: media, events: events, ffmpeg: MediaTools.locate(ffprobe: configuration.ffprobePath, ffmpeg: configuration.ffmpegPath).ffmpeg,
            root: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("livestreams", isDirectory: true),
            limit: configuration.livestreamLimit, nodeId: nodeId, logger: logger)
        self.livestreams = livestreams
        let services = CoreServices(
            configuration: configuration, storage: storage, events: events, roster: roster, logger: logger, metrics: metrics,
            media: media, mediaBackend: mediaBackend, livestreams: livestreams)
        let capabilities = Self.makeCapabilities(services)
        self.capabilities = capabilities
        let owners = Dictionary(capabilities.compactMap { capability in capability.streamKind.map { ($0, capability) } }) { first, _ in first }
        self.owners = owners
        let subscriptions = StreamSubscriptions(storage: storage, hub: hub, roster: roster, owners: owners, metrics: metrics, logger: logger)
        self.subscriptions = subscriptions
        self.presences = Presences(storage: storage, events: events, roster: roster, subscriptions: subscriptions, owners: owners,
                                   ttl: configuration.presenceTTL, nodeId: nodeId, logger: logger)
        services.userDeletion.add { deletion, transaction in
            try await Presences.removeEntries(of: deletion.userId, owners: owners, in: transaction)
        }
        var router = CommandRouter()
        router.registerStreamOperations()
        router.registerPresenceOperations()
        router.registerResourceTokenOperations()
        var operations = CapabilityOperations(into: router)
        for capability in capabilities { capability.registerOperations(&operations) }
        self.commands = operations.router
    }

    /// The background work of the capabilities, run with the server's services.
    var capabilityServices: [any Service] { capabilities.flatMap(\.services) }

    /// Disconnects this node's clients (of one user, or all): with `code`, politely (a close
    /// frame that tells the client what to do); without, by cutting the socket. Returns how many.
    func disconnect(userId: String?, code: CloseCode?, reason: String) -> Int {
        let targets = userId.map(connections.of(user:)) ?? connections.all
        for connection in targets {
            if let code {
                connection.requestClose(code, reason: reason)
            } else {
                connection.drop()
            }
        }
        return targets.count
    }

    /// Maps any error to the one clients see; unexpected errors are logged, not leaked.
    func asGreenroomError(_ error: any Error) -> GreenroomError {
        if let error = error as? GreenroomError { return error }
        if let error = error as? DecodingError {
            return GreenroomError(.invalidParameterValue, CommandRouter.describe(error))
        }
        if error is CancellationError {
            // A request cut short by a shutdown: expected, and the client will retry.
            logger.debug("request cancelled by the shutdown")
            return GreenroomError(.unavailable, "the server is shutting down; try again shortly")
        }
        logger.error("unexpected error: \(error)")
        return GreenroomError(.internalError, "the server failed; try again")
    }
}
