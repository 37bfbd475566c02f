import Foundation
import GreenroomProtocol
import Greenroom
#if canImport(Glibc)
import Glibc
#endif

/// The soak's traffic: long-lived SDK clients that chat in one channel and follow one app
/// stream, a backend publishing to that stream over REST, and around them connection churn
/// (clients that connect, subscribe, join a meeting and leave), live events that run their
/// course, a reconnect storm every 30 seconds and slow consumers that never read.
final class SoakLoad: Sendable {
    let target: BenchTarget
    let members: [GreenroomClient]
    let channel: ChannelId
    let stream: String
    private let subscriptions: [StreamSubscription]
    private let received: [Received]
    private let collectors: [Task<Void, Never>]
    private let acknowledgedIds = Locked<[String]>([])
    private let published = Tally()
    let operations = Tally()
    let failures = Tally()
    let storms = Tally()

    /// Offsets one long-lived subscriber received.
    final class Received: Sendable {
        let offsets = Locked<Set<UInt64>>([])
        var count: Int { offsets.withLock { $0.count } }
    }

    private init(target: BenchTarget, members: [GreenroomClient], channel: ChannelId, stream: String,
                 subscriptions: [StreamSubscription], received: [Received], collectors: [Task<Void, Never>]) {
        self.target = target
        self.members = members
        self.channel = channel
        self.stream = stream
        self.subscriptions = subscriptions
        self.received = received
        self.collectors = collectors
    }

    static func start(target: BenchTarget, clients: Int) async throws -> SoakLoad {
        let tag = UUID().uuidString.prefix(8).lowercased()
        let channel = ChannelId("soak-\(tag)")
        let stream = "app:soak-\(tag)"
        BenchReport.progress("connecting \(clients) SDK clients")
        var members: [GreenroomClient] = []
        var subscriptions: [StreamSubscription] = []
        for index in 0..<clients {
            let client = GreenroomClient(configuration: Self.configuration(target))
            try await client.connect(token: try await target.token("soak-\(index)"))
            members.append(client)
            subscriptions.append(try await client.subscribe(to: stream))
        }
        _ = try await members[0].createChannel(id: channel, name: "Soak", members: (1..<clients).map { "soak-\($0)" })
        let received = subscriptions.map { _ in Received() }
        let collectors = zip(subscriptions, received).map { subscription, into in
            Task {
                for await event in subscription.events { _ = into.offsets.withLock { $0.insert(event.offset) } }
            }
        }
        return SoakLoad(target: target, members: members, channel: channel, stream: stream,
                        subscriptions: subscriptions, received: received, collectors: collectors)
    }

    static func configuration(_ target: BenchTarget) -> ClientConfiguration {
        var config = ClientConfiguration(serverURL: target.baseURL)
        config.initialReconnectDelay = .milliseconds(100)
        config.maxReconnectDelay = .seconds(2)
        config.commandTimeout = .seconds(30)
        return config
    }

    var acknowledged: Int { acknowledgedIds.withLock { $0.count } + published.value }
    var summary: String {
        "\(acknowledgedIds.withLock { $0.count }) messages, \(published.value) events, \(operations.value) operations, \(failures.value) failed, \(storms.value) storms"
    }

    /// Runs every kind of traffic until `end`.
    func run(until end: Date) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.every(.milliseconds(50), until: end) { try await self.chat() } }
            group.addTask { await self.every(.milliseconds(20), until: end) { try await self.publish() } }
            group.addTask { await self.every(.milliseconds(50), until: end) { try await self.publishBulk() } }
            group.addTask { await self.every(.milliseconds(500), until: end) { try await self.churn() } }
            group.addTask { await self.every(.seconds(5), until: end) { try await self.liveEvent() } }
            group.addTask { await self.every(.seconds(30), until: end, skipFirst: true) { try await self.storm() } }
            group.addTask { await self.every(.seconds(15), until: end) { try await self.slowConsumer(for: .seconds(14)) } }
        }
    }

    private func every(_ interval: Duration, until end: Date, skipFirst: Bool = false,
                       _ body: @escaping @Sendable () async throws -> Void) async {
        if skipFirst { try? await Task.sleep(for: interval) }
        while Date() < end {
            let started = ContinuousClock.now
            do {
                try await body()
                operations.add()
            } catch {
                failures.add()
            }
            let rest = interval - (ContinuousClock.now - started)
            if rest > .zero { try? await Task.sleep(for: rest) }
        }
    }

    private func chat() async throws {
        let member = members[Int.random(in: 0..<members.count)]
        let message = try await member.channelController(for: channel).sendMessage(text: "soak \(Date().timeIntervalSince1970)")
        acknowledgedIds.withLock { $0.append(message.id) }
    }

    private func publish() async throws {
        let status = try await target.post("/v1/streams/\(stream)/events", ["type": "soak", "data": ["at": .number(Date().timeIntervalSince1970)]])
        guard (200..<300).contains(status) else { throw BenchSubscriberError(description: "publish answered \(status)") }
        published.add()
    }

    /// Large events on a stream of their own, which only the slow consumers follow: what
    /// they do not read piles up fast enough for the server to drop them.
    private func publishBulk() async throws {
        let status = try await target.post("/v1/streams/\(stream)-bulk/events", ["type": "bulk", "data": ["pad": .string(Self.bulkPad)]])
        guard (200..<300).contains(status) else { throw BenchSubscriberError(description: "publish answered \(status)") }
    }

    private static let bulkPad = String(repeating: "s", count: 32 * 1024)

    /// A short-lived client: connects, subscribes, joins a meeting, leaves, disconnects.
    private func churn() async throws {
        let client = GreenroomClient(configuration: Self.configuration(target))
        let id = "churn-\(Int.random(in: 0..<1_000_000))"
        do {
            try await client.connect(token: try await target.token(id))
            _ = try await client.subscribe(to: stream, since: nil)
            let meeting = client.initMeeting(meetingId: "soak-room-\(Int.random(in: 0..<4))", participantId: id, participantName: id,
                                             micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY)
            try await meeting.join()
            try await meeting.leave()
        } catch {
            await client.disconnect()
            throw error
        }
        await client.disconnect()
    }

    /// A live event from creation to its end, with participants entering and leaving.
    private func liveEvent() async throws {
        let host = members[0]
        let params = LiveEvent.CreateParams()
        params.title = "Soak"
        let event = try await host.createLiveEvent(config: params)
        try await event.enterAsHost()
        try await event.setEventReady()
        try await event.startEvent()
        let audience = try await members[1..<min(members.count, 6)].asyncMap { try await $0.getLiveEvent(id: event.liveEventId) }
        for viewer in audience { try await viewer.enter() }
        _ = try await event.updateCustomItems(customItems: ["at": "\(Date().timeIntervalSince1970)"])
        for viewer in audience { try await viewer.exit() }
        try await event.endEvent()
    }

    /// Every connection cut at once: every client reconnects and resumes.
    private func storm() async throws {
        BenchReport.progress("reconnect storm: cutting every connection")
        try await target.post("/v1/connections/disconnect", ["cut": true])
        storms.add()
    }

    /// A client that subscribes to the bulk stream from its start and never reads, for `duration`.
    private func slowConsumer(for duration: Duration) async throws {
        guard let port = target.baseURL.port else { return }
        let token = try await target.token("slow-\(Int.random(in: 0..<1_000_000))")
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchSubscriberError(description: "no socket") }
        defer { Glibc.close(fd) }
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        guard LoopbackTCP.connect(fd, port: port) else { throw BenchSubscriberError(description: "cannot connect") }
        let request = "GET /v1/connect HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer \(token)\r\n\r\n"
        let subscribe = BenchRawClient.maskedFrame(opcode: 1, payload: Array(#"{"id":1,"op":"stream.subscribe","args":{"stream":"\#(stream)-bulk","since":{"offset":0,"epoch":""}}}"#.utf8))
        for bytes in [Array(request.utf8), subscribe] {
            guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
                throw BenchSubscriberError(description: "cannot send")
            }
        }
        try await Task.sleep(for: duration)
    }

    /// After the traffic: waits for the subscribers to catch up, then counts acknowledged
    /// messages missing from the channel and published events missing for any subscriber.
    func verify() async throws -> Int {
        let expected = published.value
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, received.contains(where: { $0.count < expected }) {
            try await Task.sleep(for: .milliseconds(200))
        }
        let missingEvents = received.reduce(0) { $0 + max(expected - $1.count, 0) }
        var stored = Set<String>()
        var before: String?
        while true {
            let page = try await members[0].send(ChatOperation.listMessages, args: MessageListArgs(channelId: channel, before: before, limit: 100))
            stored.formUnion(page.items.map(\.id))
            guard page.items.count == 100, let oldest = page.items.first else { break }
            before = oldest.id
        }
        let missingMessages = acknowledgedIds.withLock { ids in ids.filter { !stored.contains($0) }.count }
        if missingEvents + missingMessages > 0 {
            BenchReport.progress("missing: \(missingMessages) acknowledged messages, \(missingEvents) event deliveries")
        }
        return missingEvents + missingMessages
    }

    func close() async {
        for collector in collectors { collector.cancel() }
        for member in members { await member.disconnect() }
    }
}

extension Sequence where Element: Sendable {
    /// Maps one element after another with an async transform.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
