import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The capabilities' rules on in-memory storage, without a server or a socket: each test
/// builds the core's services, calls a capability's service as a caller would, and reads
/// what was stored and announced.
@Suite("Capability rules on in-memory storage", .wholeRun)
struct DomainRuleTests {
    /// The core's services on a fresh database (in memory unless told), with the event log running.
    final class Harness: Sendable {
        let storage: any GreenroomStorage
        let events: EventLog
        let core: CapabilityContext
        private let writer: Task<Void, any Error>

        /// The services on `storage` (a fresh in-memory database by default), migrated here.
        init(storage: any GreenroomStorage = MemoryStorage(), _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws {
            self.storage = storage
            try await storage.migrate()
            var configuration = ServerConfiguration()
            configure(&configuration)
            let metrics = ServerMetrics()
            let events = EventLog(storage: storage, broker: LocalBroker(hub: EventHub(), metrics: metrics), metrics: metrics,
                                  retentionCount: 1_000, logger: .init(label: "test"))
            self.events = events
            writer = Task { try await events.run() }
            let media = MediaPlane(gateways: [], storage: storage, events: events, logger: .init(label: "test"))
            core = CapabilityContext(configuration: configuration, storage: storage, events: events,
                                roster: Roster(nodeId: "n1", ttl: 15), logger: .init(label: "test"), metrics: metrics,
                                media: media,
                                livestreams: LivestreamEngine(media: media, events: events, ffmpeg: nil, root: FileManager.default.temporaryDirectory,
                                                              limit: 0, nodeId: "n1", logger: .init(label: "test")),
                                deliveries: OutboxDispatcher(storage: storage, events: events, policy: configuration.webhooks.deliveryPolicy,
                                                             logger: .init(label: "test")),
                                outbound: OutboundClients(webhooks: AsyncHTTPOutbound.webhooks(), apns: AsyncHTTPOutbound.apns(trusting: nil)))
        }

        deinit { writer.cancel() }

        /// A caller with a connection of its own on node `n1`.
        func caller(_ userId: String, grants: Set<String> = [], connection: Int = 1) -> Caller {
            Caller(identity: Identity(userId: userId, grants: grants, expiresAt: .distantFuture),
                   clientId: "n1-\(connection)", session: NotedSession())
        }

        func stored(_ stream: String) async throws -> [StreamEvent] {
            try await storage.readEvents(stream: stream, after: 0, limit: 1_000)
        }
    }

    /// A caller's session without a socket: it keeps the roster notes a connection keeps.
    final class NotedSession: CallerSession {
        private let notes = Locked<[(stream: String, key: String)]>([])
        func holdRoster(stream: String, key: String) {
            notes.withLock { notes in if !notes.contains(where: { $0 == (stream, key) }) { notes.append((stream, key)) } }
        }
        func releaseRoster(stream: String, key: String) { notes.withLock { $0.removeAll { $0 == (stream, key) } } }
        var rosterEntries: [(stream: String, key: String)] { notes.withLock { $0 } }
        func endSubscription(_ stream: String) {}
    }

    @Test("meetings: the participant limit, a taken participant id, leaving, and a mode change announced with its stream changes")
    func meetingRules() async throws {
        let harness = try await Harness { $0.meetingParticipantLimit = 2 }
        let meetings = MeetingsCapability(harness.core).service
        func join(_ caller: Caller, as id: String, mode: Mode = .SEND_AND_RECV) async throws -> MeetingJoinResult {
            try await meetings.join(MeetingJoinArgs(meetingId: "m", participantId: id, name: id, mode: mode, micEnabled: true), caller: caller)
        }
        let alice = harness.caller("alice"), bob = harness.caller("bob", connection: 2), carol = harness.caller("carol", connection: 3)
        _ = try await join(alice, as: "a")
        _ = try await join(bob, as: "b")
        #expect(await refusal { _ = try await join(carol, as: "c") } == .maxParticipantsReached)
        #expect(await refusal { _ = try await join(carol, as: "a") } == .participantIdTaken)
        #expect(try await meetings.current("m").participants.map(\.participantId) == ["a", "b"])

        let changed = try await meetings.changeMode(MeetingModeArgs(meetingId: "m", mode: .RECV_ONLY), caller: alice)
        #expect(changed.mode == .RECV_ONLY && !changed.micOn)
        try await meetings.leave("m", caller: bob)
        _ = try await join(carol, as: "c")
        let types = try await harness.stored(StreamKind.meeting.stream("m")).map(\.type)
        #expect(types == [MeetingEventType.participantJoined, MeetingEventType.participantJoined, MeetingEventType.streamDisabled,
                          MeetingEventType.modeChanged, MeetingEventType.participantLeft, MeetingEventType.participantJoined])
    }

    @Test("live events: entering before ready is refused; the peak and cumulative counts follow entries and exits")
    func liveEventRules() async throws {
        let harness = try await Harness()
        let live = LiveEventsCapability(harness.core).service
        let host = harness.caller("host")
        let created = try await live.create(LiveEventCreateArgs(userIdsForHost: ["host"]), by: "host")
        let id = created.liveEventId
        let viewer = harness.caller("viewer", connection: 2)
        #expect(await refusal { _ = try await live.enter(id, caller: viewer) } == .actionNotAllowedInCurrentState)
        #expect(try await harness.storage.presence(stream: created.stream).isEmpty)
        _ = try await live.enterAsHost(LiveEventHostArgs(liveEventId: id), caller: host)
        _ = try await live.setReady(id, by: "host")
        _ = try await live.enter(id, caller: viewer)
        try await live.exit(id, caller: viewer)
        _ = try await live.enter(id, caller: viewer)
        let event = try await live.get(id)
        #expect(event.participantCount == 1 && event.peakParticipantCount == 1 && event.cumulativeParticipantCount == 1)
        let ended = try await live.end(id, by: "host")
        #expect(ended.state == .ended && ended.participantCount == 0)
        #expect(try await harness.storage.presence(stream: created.stream).isEmpty)
    }

    @Test("chat: a non-member may not send; a message and its event are stored together, in sequence")
    func chatRules() async throws {
        let harness = try await Harness()
        let chat = ChatCapability(harness.core).service
        for user in ["alice", "bob", "eve"] { _ = try await harness.storage.insertUserIfMissing(StorageConformanceTests.user(user, user)) }
        let channel = try await chat.create(ChannelCreateArgs(id: "club", name: "Club", members: ["bob"]), by: "alice")
        #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: channel.id, text: "hi"), by: "eve") } == .notChannelMember)
        let first = try await chat.send(MessageSendArgs(channelId: channel.id, text: "one"), by: "alice")
        let second = try await chat.send(MessageSendArgs(channelId: channel.id, text: "two"), by: "bob")
        #expect(first.sequence == 1 && second.sequence == 2)
        let news = try await harness.stored(channel.id.stream).filter { $0.type == ChatEventType.messageNew }
        #expect(news.compactMap { $0.data["message"]?["text"]?.stringValue } == ["one", "two"])
    }

    @Test("chat: message ids sort by the millisecond the server made them, and differ within one")
    func messageIds() async throws {
        let harness = try await Harness()
        let chat = ChatCapability(harness.core).service
        _ = try await chat.create(ChannelCreateArgs(id: "club"), by: "alice")
        var ids: [String] = []
        for index in 0..<3 {
            let message = try await chat.send(MessageSendArgs(channelId: "club", text: "\(index)"), by: "alice")
            #expect(message.id.utf8.count == 32 && message.id.hasPrefix("m") && Limits.isValidId(message.id))
            #expect(Int(message.id.dropFirst().prefix(11), radix: 16) == Int((message.createdAt.timeIntervalSince1970 * 1_000).rounded(.down)))
            ids.append(message.id)
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(ids == ids.sorted() && Set(ids).count == 3)
        // Within a millisecond the ids are told apart by their 80 random bits.
        let now = Date()
        let sameMillisecond = (0..<1_000).map { _ in RandomHex.timeOrdered(now, randomBytes: 10) }
        #expect(Set(sameMillisecond).count == 1_000 && Set(sameMillisecond.map { $0.prefix(11) }).count == 1)
    }

    @Test("users: an invalid change is refused and stores nothing; a valid one is stored with its event")
    func userRules() async throws {
        let harness = try await Harness()
        let users = UsersCapability(harness.core).service
        _ = try await users.create(UserUpdateArgs(id: "u1", nickname: "One"))
        #expect(await refusal { _ = try await users.partialUpdate("u1", UserPartialUpdateArgs(set: UserPartialSet(nickname: "  "))) } == .invalidParameterValue)
        #expect(try await harness.stored(StreamName.user("u1")).isEmpty)
        _ = try await users.partialUpdate("u1", UserPartialUpdateArgs(set: UserPartialSet(nickname: "Uno")))
        #expect(try await users.get("u1").nickname == "Uno")
        #expect(try await harness.stored(StreamName.user("u1")).map(\.type) == ["user.updated"])
    }
}
