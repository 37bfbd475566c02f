import Foundation
import GreenroomProtocol
import Logging
import ServiceLifecycle
import Tracing

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
    /// Whether the node takes new clients (`GET /ready`).
    let readiness = Readiness()
    /// Live media through the SFU.
    let media: MediaPlane
    /// The SFU in use (and the Janus this server runs, if it runs one).
    let mediaBackend: MediaBackend
    /// The HLS livestreams this node runs.
    let livestreams: LivestreamEngine
    /// Who a request or a connection request is (tokens and the API key).
    let authenticator: Authenticator
    /// The WebSocket sessions: admitted, started and ended.
    let sessions: Sessions
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
    /// Delivers the outbox's jobs to the capabilities' destinations.
    let deliveries: OutboxDispatcher
    /// Makes the spans of commands, writes and deliveries; `nil` when tracing is off.
    let tracer: (any Tracer)?

    /// The capabilities this server offers: the one list to change when adding one.
    static func makeCapabilities(_ core: CapabilityContext) -> [any Capability] {
        [
            UsersCapability(core),
            AppStreamsCapability(core),
            ChatCapability(core),
            LiveEventsCapability(core),
            MeetingsCapability(core),
            VideosCapability(core),
            MediaCapability(core),
            WebhooksCapability(core),
            OnlineCapability(core),
            PushCapability(core),
            ConsoleCapability(core),
        ]
    }

    init(configuration: ServerConfiguration, backend: StorageBackend, media mediaBackend: MediaBackend = .none,
         tokens: TokenService, secrets: Secrets, tracer: (any Tracer)? = nil, logger: Logger) {
        let storage = backend.storage
        let nodeId = RandomHex.string(bytes: 6)
        let metrics = ServerMetrics()
        let hub = EventHub(tracer: tracer, node: nodeId)
        let broker = backend.makeBroker(hub, metrics, logger)
        let events = EventLog(storage: storage, broker: broker, metrics: metrics, retentionCount: configuration.retentionCount, logger: logger,
                              queueLimit: configuration.writeQueueLimit,
                              queueWait: .milliseconds(Int64(configuration.writeQueueWait * 1000)), tracer: tracer)
        self.tracer = tracer
        let roster = Roster(nodeId: nodeId, ttl: configuration.presenceTTL)
        let connections = ConnectionRegistry()
        hub.watch(type: TokenRevocation.eventType) { event in
            guard let (userId, notBefore, reason) = TokenRevocation.revocation(in: event) else { return }
            connections.revoke(user: userId, issuedUpTo: notBefore, reason: reason)
        }
        self.connections = connections
        let rateLimiter = RateLimiter(configuration.rateLimits, perConnection: configuration.connectionRateLimits.over(configuration.rateLimits))
        self.rateLimiter = rateLimiter
        let authenticator = Authenticator(tokens: tokens, secrets: secrets, storage: storage, rateLimiter: rateLimiter)
        self.authenticator = authenticator
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
        let media = MediaPlane(gateways: mediaBackend.gateways, storage: storage, events: events, logger: logger,
                               maxPublisherBitrate: configuration.mediaNetwork.maxPublisherBitrate)
        self.media = media
        self.mediaBackend = mediaBackend
        let livestreams = LivestreamEngine(
            media: media, events: events, ffmpeg: MediaTools.locate(ffprobe: configuration.ffprobePath, ffmpeg: configuration.ffmpegPath).ffmpeg,
            root: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("livestreams", isDirectory: true),
            limit: configuration.livestreamLimit, nodeId: nodeId, logger: logger)
        self.livestreams = livestreams
        let deliveries = OutboxDispatcher(storage: storage, events: events, policy: configuration.webhooks.deliveryPolicy, logger: logger)
        self.deliveries = deliveries
        let services = CapabilityContext(
            configuration: configuration, storage: storage, events: events, roster: roster, logger: logger, metrics: metrics,
            media: media, livestreams: livestreams, deliveries: deliveries,
            outbound: OutboundClients(webhooks: AsyncHTTPOutbound.webhooks(), apns: AsyncHTTPOutbound.apns(trusting: configuration.push.caCertificatePath)))
        let capabilities = Self.makeCapabilities(services)
        self.capabilities = capabilities
        let owners = Dictionary(capabilities.compactMap { capability in capability.streamKind.map { ($0, capability) } }) { first, _ in first }
        self.owners = owners
        let subscriptions = StreamSubscriptions(storage: storage, broker: broker, roster: roster, owners: owners, metrics: metrics, logger: logger)
        self.subscriptions = subscriptions
        let presences = Presences(storage: storage, events: events, roster: roster, subscriptions: subscriptions, owners: owners,
                                  ttl: configuration.presenceTTL, nodeId: nodeId, logger: logger)
        self.presences = presences
        services.userDeletion.add { deletion, transaction in
            try await Presences.removeEntries(of: deletion.userId, owners: owners, in: transaction)
        }
        var router = CommandRouter(metrics: metrics, rateLimiter: rateLimiter, logger: logger, tracer: tracer)
        router.registerStreamOperations(subscriptions)
        router.registerPresenceOperations(presences)
        router.registerResourceTokenOperations(tokens)
        var operations = CapabilityOperations()
        for capability in capabilities { capability.registerOperations(&operations) }
        operations.register(into: &router)
        let commands = router
        self.commands = commands
        self.sessions = Sessions(
            authenticator: authenticator, storage: storage, events: events, connections: connections, configuration: configuration,
            rateLimiter: rateLimiter, metrics: metrics, roster: roster, hub: hub, presences: presences, capabilities: capabilities,
            commands: commands)
    }

    /// The background work of the SFU connections, the outbox's deliveries and the
    /// capabilities, run with the server's services.
    var capabilityServices: [any Service] { mediaBackend.services + [deliveries] + capabilities.flatMap(\.services) }
}
