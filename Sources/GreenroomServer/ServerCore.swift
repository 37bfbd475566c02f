import Foundation
import GreenroomProtocol
import Logging
import Synchronization

/// The parts every request and connection uses: storage, the event log, the hub, tokens,
/// metrics and the live connections.
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
    let users: UserService
    let chat: ChatService
    let roster: Roster
    let liveEvents: LiveEventService
    let meetings: MeetingService
    let videos: VideoService
    let videoProcessor: VideoProcessor
    let mediaTools: MediaTools
    let connections = ConnectionRegistry()
    /// Set when graceful shutdown begins: new connections are refused with `unavailable`.
    let draining = Atomic<Bool>(false)
    let commands: CommandRouter
    /// This node's id, unique among the nodes sharing a database.
    let nodeId: String

    init(configuration: ServerConfiguration, backend: StorageBackend, tokens: TokenService, secrets: Secrets, logger: Logger) {
        let storage = backend.storage
        let nodeId = Secrets.randomHex(bytes: 6)
        self.nodeId = nodeId
        self.configuration = configuration
        self.storage = storage
        self.tokens = tokens
        self.secrets = secrets
        self.logger = logger
        let metrics = ServerMetrics()
        let hub = EventHub()
        let broker = backend.makeBroker(hub, metrics, logger)
        let events = EventLog(storage: storage, broker: broker, metrics: metrics, retentionCount: configuration.retentionCount, logger: logger)
        self.broker = broker
        self.metrics = metrics
        self.hub = hub
        self.events = events
        self.users = UserService(storage: storage, events: events)
        self.chat = ChatService(storage: storage, events: events, memberLimit: configuration.channelMemberLimit)
        let roster = Roster(nodeId: nodeId, ttl: configuration.presenceTTL)
        self.roster = roster
        self.liveEvents = LiveEventService(storage: storage, events: events, roster: roster, grace: configuration.reconnectGrace)
        self.meetings = MeetingService(storage: storage, events: events, roster: roster, grace: configuration.reconnectGrace,
                                       participantLimit: configuration.meetingParticipantLimit)
        let processor = VideoProcessor(workers: configuration.videoWorkers)
        let tools = MediaTools.locate(ffprobe: configuration.ffprobePath, ffmpeg: configuration.ffmpegPath)
        let videos = VideoService(
            storage: storage, events: events, directory: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("videos", isDirectory: true),
            maxBytes: configuration.videoMaxBytes, processor: processor)
        processor.setHandler { id in await videos.process(id, tools: tools, logger: logger) }
        self.videos = videos
        self.videoProcessor = processor
        self.mediaTools = tools
        var router = CommandRouter()
        router.registerStreamOperations()
        router.registerUserOperations()
        router.registerPresenceOperations()
        router.registerChatOperations()
        router.registerLiveEventOperations()
        router.registerMeetingOperations()
        self.commands = router
    }

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

/// The node's open connections, by user, so that a user's deletion or a shutdown reaches them;
/// and the users whose closed connections are still being cleaned up.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [Int: ClientConnection] = [:]
        var closing: Set<Int> = []
        var closingByUser: [String: Int] = [:]
        var nextId = 1
    }

    private let state = Mutex(State())

    func nextId() -> Int { state.withLock { s in defer { s.nextId += 1 }; return s.nextId } }
    func add(_ connection: ClientConnection) { state.withLock { $0.connections[connection.id] = connection } }

    /// Notes that a connection's socket closed; it stays until ``remove(_:)``, when its
    /// departure (presence, rosters) is done.
    func markClosing(_ connection: ClientConnection) {
        state.withLock { state in
            guard state.connections[connection.id] != nil, state.closing.insert(connection.id).inserted else { return }
            state.closingByUser[connection.identity.userId, default: 0] += 1
        }
    }

    func remove(_ connection: ClientConnection) {
        state.withLock { state in
            state.connections[connection.id] = nil
            guard state.closing.remove(connection.id) != nil else { return }
            let userId = connection.identity.userId
            let left = (state.closingByUser[userId] ?? 1) - 1
            state.closingByUser[userId] = left > 0 ? left : nil
        }
    }

    /// Whether a closed connection of `userId` is still being cleaned up.
    func isClosing(user userId: String) -> Bool { state.withLock { $0.closingByUser[userId] != nil } }
    var all: [ClientConnection] { state.withLock { Array($0.connections.values) } }
    var count: Int { state.withLock { $0.connections.count } }
    func of(user: String) -> [ClientConnection] { all.filter { $0.identity.userId == user } }
}
