import GreenroomProtocol
import Logging

/// Connections' subscriptions to streams: who may read a stream, and a subscription's
/// start (registered for live events, replied to, what was missed replayed at the socket's
/// pace, then live without a gap or a duplicate) and end.
final class StreamSubscriptions: Sendable {
    /// The most subscriptions one connection may hold.
    static let maxPerConnection = 512
    /// How many events one page of a replay reads (at most 64 KB each): the page waits in
    /// memory until the connection's queue has room for it.
    static let replayPage = 64

    private let storage: any GreenroomStorage
    private let broker: any Broker
    private let roster: Roster
    /// The capabilities owning a kind of stream, by that kind.
    private let owners: [StreamKind: any Capability]
    private let metrics: ServerMetrics
    private let logger: Logger

    init(storage: any GreenroomStorage, broker: any Broker, roster: Roster, owners: [StreamKind: any Capability],
         metrics: ServerMetrics, logger: Logger) {
        self.storage = storage
        self.broker = broker
        self.roster = roster
        self.owners = owners
        self.metrics = metrics
        self.logger = logger
    }

    /// Subscribes a caller's session: registers it for live events first (buffering them),
    /// then replies, replays from the log what the client missed, and goes live without a
    /// gap or a duplicate.
    func subscribe(_ caller: Caller, _ session: any StreamSession, _ args: SubscribeArgs,
                   reply: CommandRouter.Reply<SubscribeResult>) async throws {
        guard StreamName.isValid(args.stream) else {
            throw GreenroomError(.invalidParameterValue, "stream must be 1–200 characters of letters, digits and :_-.@")
        }
        // Inside the room (its roster holds this connection's entry): may read it, whatever
        // the room's size; otherwise the stream's owner decides.
        if try await !roster.holdsAny(caller, stream: args.stream, in: storage) {
            try await authorizeRead(caller.identity, stream: args.stream)
        }
        guard session.subscriptionCount < Self.maxPerConnection else {
            throw GreenroomError(.rateLimited, "at most \(Self.maxPerConnection) subscriptions per connection")
        }
        guard session.beginSubscription(args.stream) else {
            throw GreenroomError(.alreadyExists, "already subscribed to \(args.stream); unsubscribe first")
        }
        var replied = false
        do {
            let info = try await storage.streamInfo(args.stream)
            // Registered before the head was read: every later event reaches the session live.
            broker.follow(args.stream, after: info.head)
            var from = info.head
            var recovered = true
            if let since = args.since {
                let sameEpoch = since.epoch == nil || since.epoch == info.epoch
                if sameEpoch && since.offset >= info.trimmed && since.offset <= info.head {
                    from = since.offset
                } else {
                    recovered = false
                }
            }
            let result = SubscribeResult(epoch: info.epoch, offset: info.head, recovered: recovered, replayed: Int(info.head - from))
            try reply(result)
            replied = true
            var last = from
            while last < info.head {
                let events = try await storage.readEvents(stream: args.stream, after: last, limit: Self.replayPage)
                guard let newest = events.last else { break }
                let visible = events.filter { $0.isVisible(to: caller.userId) }
                // Paced by the socket: a client that does not read holds one page and a
                // full queue, until the stall check closes it.
                guard await session.sendReplay(try visible.map(EventHub.encode)) else {
                    session.endSubscription(args.stream)
                    return
                }
                metrics.eventsDelivered(visible.count)
                last = newest.offset
            }
            session.goLive(args.stream, after: last)
        } catch {
            session.endSubscription(args.stream)
            if replied {
                // The client holds a success reply but the replay broke off: make it
                // reconnect and resubscribe from what it got, rather than leave a gap.
                logger.error("replay of \(args.stream) failed after the reply: \(error)")
                session.requestResume(reason: "replay failed: reconnect and resume")
                return
            }
            throw error
        }
    }

    /// Who may read a stream: the capability that owns its kind decides.
    func authorizeRead(_ identity: Identity, stream: String) async throws {
        let kind = StreamKind(of: stream)
        guard let owner = owners[kind] else {
            let kinds = owners.keys.map { $0 == StreamKind(rawValue: VideoStream.name) ? $0.rawValue : "\($0.rawValue):ID" }.sorted()
            throw GreenroomError(.invalidParameterValue, "unknown stream kind \(kind); streams are \(kinds.joined(separator: ", "))")
        }
        try await owner.authorizeRead(identity, streamId: kind.id(in: stream) ?? "")
    }

    /// Ends a session's subscription to `stream`. - Throws: `notFound` when it had none.
    func unsubscribe(_ session: any StreamSession, from stream: String) throws {
        guard session.unsubscribe(stream) else {
            throw GreenroomError(.notFound, "not subscribed to \(stream)")
        }
    }
}
