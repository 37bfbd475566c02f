import ArgumentParser
import Foundation
import Greenroom
import GreenroomProtocol
import NIOCore

/// `greenroom bench room`: N participants enter one live event (or, with `--meeting`, join one
/// meeting in `RECV_ONLY`; with `--channel`, join one chat channel) and follow its stream;
/// then its host changes a custom item (publishes a pub/sub message; signals that it is
/// typing) R times a second.
struct BenchRoom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room",
        abstract: "N participants enter one live event or join one meeting (time, server memory, count events); then the host sends E events at R/s to all of them.")

    @Option(help: "Participants entering the live event, each on its own connection.") var participants: Int = 1000
    @Option(help: "Host events per second once everyone is inside.") var rate: Double = 10
    @Option(help: "Host events to send (custom item changes).") var events: Int = 100
    @Flag(help: "Join one meeting in RECV_ONLY instead (its host SEND_AND_RECV and a moderator, sending pub/sub messages).") var meeting = false
    @Flag(help: "Join one public chat channel instead; the host's events are typing signals, which must write nothing.") var channel = false
    @OptionGroup var options: BenchOptions
    @Option(help: "Measure a peer the same way in the same run, after Greenroom: nats (nats-server's WebSocket listener; as many subscribers on one subject, the host's events as PUBs over TCP at the same rate and size).") var peer: String?
    @Option(name: .customLong("nats-server"), help: "The nats-server for --peer nats (else on PATH).") var natsServer: String?

    /// The room the benchmark fills: its stream, the command that takes a participant in, and
    /// how the host sends an event stamped with its send time.
    private struct Room {
        var stream: String
        var countEvent: String
        var enter: @Sendable (Int) -> String
        var send: @Sendable (GreenroomClient, String) async throws -> Void
        var count: @Sendable (GreenroomClient) async throws -> Int
        /// Whether the host's events are signals (stamped by their `at`), which store nothing.
        var signals = false
    }

    private func room(_ host: GreenroomClient, _ target: BenchTarget) async throws -> Room {
        if channel {
            let id = ChannelId("bench-channel")
            _ = try await host.send(ChatOperation.create, args: ChannelCreateArgs(id: id, name: "bench", isPublic: true))
            try await addMembers(to: id, host, target)
            return Room(stream: id.stream, countEvent: ChatEventType.memberJoined,
                        enter: { _ in #"{"id":1,"op":"channel.get","args":{"channelId":"\#(id.rawValue)"}}"# },
                        send: { host, _ in
                            _ = try await host.send(ChatOperation.typing, args: TypingArgs(channelId: id, typing: true))
                        },
                        // Everyone but the host.
                        count: { try await $0.send(ChatOperation.get, args: ChannelRef(channelId: id)).memberCount - 1 },
                        signals: true)
        }
        guard meeting else {
            let id = try await host.send(LiveEventOperation.create, args: LiveEventCreateArgs(title: "bench")).liveEventId
            _ = try await host.send(LiveEventOperation.setReady, args: LiveEventRef(liveEventId: id))
            _ = try await host.send(LiveEventOperation.start, args: LiveEventRef(liveEventId: id))
            return Room(stream: StreamKind.live.stream(id), countEvent: LiveEventEventType.participantCountChanged,
                        enter: { _ in #"{"id":1,"op":"live.enter","args":{"liveEventId":"\#(id)"}}"# },
                        send: { host, stamp in
                            _ = try await host.send(LiveEventOperation.updateCustomItems, args: LiveEventCustomItemsArgs(liveEventId: id, customItems: ["t": stamp]))
                        },
                        count: { try await $0.send(LiveEventOperation.get, args: LiveEventRef(liveEventId: id)).participantCount })
        }
        let id = "bench-room"
        _ = try await host.send(MeetingOperation.join, args: MeetingJoinArgs(meetingId: id, participantId: "host", name: "Host", mode: .SEND_AND_RECV))
        return Room(stream: StreamKind.meeting.stream(id), countEvent: MeetingEventType.participantCountChanged,
                    enter: { index in
                        #"{"id":1,"op":"meeting.join","args":{"meetingId":"\#(id)","participantId":"v\#(index)","name":"Viewer \#(index)","mode":"RECV_ONLY"}}"#
                    },
                    send: { host, stamp in
                        _ = try await host.send(MeetingOperation.publish, args: PubSubPublishArgs(meetingId: id, topic: "bench", message: "m", payload: ["t": .string(stamp)]))
                    },
                    // Everyone but the host.
                    count: { (try await $0.send(MeetingOperation.get, args: MeetingRef(meetingId: id)).participantCount ?? 0) - 1 })
    }

    func run() async throws {
        guard participants > 0, rate > 0, events > 0 else { throw ValidationError("sizes must be positive") }
        guard !(meeting && channel) else { throw ValidationError("--meeting or --channel, not both") }
        let natsProgram = try NATSPeer.program(peer: peer, natsServer: natsServer)
        let target = try await BenchTarget.start(options, environment: ["GREENROOM_MEETING_PARTICIPANT_LIMIT": String(participants + 1),
                                                                        "GREENROOM_CHANNEL_MEMBER_LIMIT": String(participants + 1)])
        defer { target.stop() }
        let host = GreenroomClient(serverURL: target.baseURL)
        try await host.connect(token: try await target.token("bench-host", grants: ["app:*", MeetingGrant.allowMod, BenchTarget.unmetered]))
        let room = try await room(host, target)
        let stream = room.stream
        let head = try await logEvents(target, stream).count
        try await Task.sleep(for: .milliseconds(300))
        let memoryBefore = target.memory()

        BenchReport.progress("\(participants) participants entering \(stream)")
        var issued: [String] = []
        for index in 0..<participants { issued.append(try await target.token("bench-fan-\(index)", grants: [])) }
        let tokens = issued
        let (inside, failed) = (Tally(), Tally())
        let (participants, events) = (participants, events)
        let deadline = ContinuousClock.now + .seconds(Double(participants) / 50 + Double(events) / rate + 120)
        let start = Date()
        let results = Task {
            try await withThrowingTaskGroup(of: RoomParticipantHandler.Result.self) { group in
                for index in 0..<participants {
                    group.addTask {
                        do {
                            return try await BenchRawClient.run(url: target.webSocketURL, token: tokens[index], deadline: deadline) { request, timeout, promise in
                                RoomParticipantHandler(request: request, timeout: timeout, enter: room.enter(index), stream: stream, expected: events,
                                                       signals: room.signals, inside: inside, failed: failed, promise: promise)
                            }
                        } catch {
                            failed.add()
                            return RoomParticipantHandler.Result()
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        while inside.value + failed.value < participants && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let enterSeconds = Date().timeIntervalSince(start)
        BenchReport.progress("\(inside.value) inside, \(failed.value) failed, in \(String(format: "%.1f", enterSeconds)) s")
        try await Task.sleep(for: .seconds(2))   // the counts' last announcement (at most one a second)
        let memoryInside = target.memory()
        let countEvents = try await logEvents(target, stream).dropFirst(head).filter { $0 == room.countEvent }.count
        let participantCount = try await room.count(host)

        BenchReport.progress("the host sends \(events) events at \(rate)/s")
        let cpuBefore = target.cpuSeconds
        let appendedBefore = try await target.metric("greenroom_events_appended_total")
        let sendStart = Date()
        for index in 0..<events {
            let wait = sendStart.addingTimeInterval(Double(index) / rate).timeIntervalSinceNow
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            // Stamped as it is sent; the participants read it back from the event.
            try await room.send(host, String(Date().timeIntervalSince1970))
        }
        let sendSeconds = Date().timeIntervalSince(sendStart)
        let all = try await results.value
        let cpuAfter = target.cpuSeconds
        let appendedAfter = try await target.metric("greenroom_events_appended_total")
        await host.disconnect()

        var latencies = Latencies()
        var delivered = 0
        for result in all {
            delivered += result.latencies.count
            for milliseconds in result.latencies { latencies.record(milliseconds: milliseconds) }
        }
        let frameBytes = all.map(\.frameBytes).max() ?? 0
        let expected = inside.value * events
        var figures: [String: RawJSON] = [
            "bench": "room", "room": .string(channel ? "channel" : meeting ? "meeting" : "live"), "participants": .number(Double(participants)), "inside": .number(Double(inside.value)),
            "failed": .number(Double(failed.value)), "enterSeconds": BenchReport.rounded(enterSeconds),
            "participantCount": .number(Double(participantCount)),
            "countEvents": .number(Double(countEvents)),
            "events": .number(Double(events)), "rate": .number(rate), "sendSeconds": BenchReport.rounded(sendSeconds),
            "expected": .number(Double(expected)), "delivered": .number(Double(delivered)), "lost": .number(Double(expected - delivered)),
        ].merging(latencies.figures()) { _, new in new }
        let appended = (appendedAfter ?? 0) - (appendedBefore ?? 0)
        figures["eventsStoredWhileSending"] = .number(appended)
        if let before = memoryBefore, let after = memoryInside {
            figures["serverMemoryBeforeMB"] = BenchReport.rounded(Double(before) / 1_048_576, 1)
            figures["serverMemoryInsideMB"] = BenchReport.rounded(Double(after) / 1_048_576, 1)
            if inside.value > 0 { figures["bytesPerParticipant"] = .number(Double((after - before) / inside.value)) }
        }
        if let before = cpuBefore, let after = cpuAfter, delivered > 0 {
            figures["serverCpuMicrosecondsPerDelivery"] = BenchReport.rounded((after - before) / Double(delivered) * 1_000_000, 2)
        }
        figures["frameBytes"] = .number(Double(frameBytes))
        var peerLost = 0.0
        if let natsProgram {
            let nats = try await NATSPeer.start(natsProgram)
            defer { nats.stop() }
            let peerFigures = try await measureNATS(nats, frameBytes: frameBytes)
            peerLost = NATSPeer.report(peerFigures, in: &figures)
        }
        try BenchReport.figures(figures)
        if inside.value < participants || delivered < expected || participantCount != participants || peerLost > 0 { throw ExitCode(2) }
        // Signals are never stored: a write while only signals were sent is a failure.
        if room.signals && appended != 0 { throw ExitCode(2) }
    }

    /// Makes the participants members of the channel before any of them follows it (as
    /// members of a big channel joined over time): each join announced to the members
    /// already following would otherwise be N²/2 frames before the first keystroke.
    private func addMembers(to id: ChannelId, _ host: GreenroomClient, _ target: BenchTarget) async throws {
        BenchReport.progress("adding \(participants) members to \(id.stream)")
        let users = (0..<participants).map { "bench-fan-\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, user) in users.enumerated() {
                if index >= 16 { try await group.next() }
                group.addTask {
                    let status = try await target.post("v1/users", ["id": .string(user), "nickname": .string(user)])
                    guard status == 201 || status == 409 else { throw BenchSubscriberError(description: "creating \(user) answered \(status)") }
                }
            }
            try await group.waitForAll()
        }
        for start in stride(from: 0, to: users.count, by: Limits.maxPageSize) {
            let batch = Array(users[start..<min(start + Limits.maxPageSize, users.count)])
            _ = try await host.send(ChatOperation.invite, args: ChannelUsersArgs(channelId: id, userIds: batch))
        }
    }

    /// The types of `stream`'s events in its log, oldest first (read with the API key).
    private func logEvents(_ target: BenchTarget, _ stream: String) async throws -> [String] {
        var types: [String] = []
        var after: UInt64 = 0
        while true {
            let (data, status) = try await target.get("v1/streams/\(stream)/events",
                                                      query: [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "limit", value: "1000")])
            guard status == 200 else { throw BenchSubscriberError(description: "reading \(stream)'s log answered \(status)") }
            let page = try WireCoding.decode([StreamEvent].self, from: data)
            types += page.map(\.type)
            guard let last = page.last, page.count == 1000 else { return types }
            after = last.offset
        }
    }
}

/// A participant of the room benchmark on a raw WebSocket: enters the live event (joins the
/// meeting), follows its stream, then reads the send time back from each host event (no
/// decoding).
final class RoomParticipantHandler: RawClientHandler {
    struct Result: Sendable {
        /// Milliseconds from the host's send to this participant, per change received.
        var latencies: [Double] = []
        /// The size of the last host event's frame (its payload), in bytes.
        var frameBytes = 0
    }

    private static let stampKey = Array(#""t":""#.utf8)
    private static let signalKey = Array(#"{"signal":"#.utf8)
    private static let atKey = Array(#""at":""#.utf8)
    private static let typingKey = Array(#""type":"typing.start""#.utf8)
    private let enter: String
    private let stream: String
    private let expected: Int
    /// Whether the host's events come as signals, stamped by their `at`.
    private let signals: Bool
    private let inside: Tally
    private let failed: Tally
    private let promise: EventLoopPromise<Result>
    private var step = 0
    private var result = Result()

    init(request: String, timeout: TimeAmount, enter: String, stream: String, expected: Int, signals: Bool = false, inside: Tally, failed: Tally,
         promise: EventLoopPromise<Result>) {
        self.enter = enter
        self.stream = stream
        self.expected = expected
        self.signals = signals
        self.inside = inside
        self.failed = failed
        self.promise = promise
        super.init(request: request, timeout: timeout)
    }

    override func didUpgrade(_ context: ChannelHandlerContext) {
        command(enter, context)
    }

    override func didReceive(text view: ByteBufferView, _ context: ChannelHandlerContext) {
        if BenchRawClient.number(after: BenchRawClient.replyKey, in: view) != nil {
            guard !BenchRawClient.contains(BenchRawClient.errorKey, in: view) else {
                finish(context, error: BenchSubscriberError(description: "refused: \(String(decoding: view.prefix(200), as: UTF8.self))"))
                return
            }
            step += 1
            if step == 1 {
                command(#"{"id":2,"op":"stream.subscribe","args":{"stream":"\#(stream)"}}"#, context)
            } else if step == 2 {
                inside.add()
            }
            return
        }
        let sent: Double?
        if signals {
            guard view.starts(with: Self.signalKey) else { return }
            sent = BenchRawClient.string(after: Self.atKey, in: view).flatMap(GreenroomDateFormatter.date(from:))?.timeIntervalSince1970
        } else {
            sent = BenchRawClient.number(after: Self.stampKey, in: view)
        }
        guard let sent else { return }
        result.latencies.append((Date().timeIntervalSince1970 - sent) * 1000)
        result.frameBytes = view.count
        if result.latencies.count >= expected { finish(context) }
    }

    private func command(_ text: String, _ context: ChannelHandlerContext) {
        send(BenchRawClient.maskedFrame(opcode: 1, payload: Array(text.utf8)), context)
    }

    /// A participant that ends before it is inside (refused, its connection closed or
    /// failed, or the deadline passed) counts as failed, and the first few say why.
    override func report(error: (any Error)?) {
        if step < 2 {
            let count = failed.add()
            if count <= 5 {
                let stage = step == 1 ? "after entering" : isUpgraded ? "before entering" : "before its upgrade"
                BenchReport.progress("a participant ended \(stage): \(error.map { "\($0)" } ?? "its connection closed")")
            }
        }
        promise.succeed(result)
    }
}

