import ArgumentParser
import Foundation
import Greenroom
import GreenroomProtocol
import NIOCore

/// `greenroom bench room`: N participants enter one live event (or, with `--meeting`, join one
/// meeting in `RECV_ONLY`) and follow its stream; then its host changes a custom item (or
/// publishes a pub/sub message) R times a second.
struct BenchRoom: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "room",
        abstract: "N participants enter one live event or join one meeting (time, server memory, count events); then the host sends E events at R/s to all of them.")

    @Option(help: "Participants entering the live event, each on its own connection.") var participants: Int = 1000
    @Option(help: "Host events per second once everyone is inside.") var rate: Double = 10
    @Option(help: "Host events to send (custom item changes).") var events: Int = 100
    @Flag(help: "Join one meeting in RECV_ONLY instead (its host SEND_AND_RECV and a moderator, sending pub/sub messages).") var meeting = false
    @OptionGroup var options: BenchOptions

    /// The room the benchmark fills: its stream, the command that takes a participant in, and
    /// how the host sends an event stamped with its send time.
    private struct Room {
        var stream: String
        var countEvent: String
        var enter: @Sendable (Int) -> String
        var send: @Sendable (GreenroomClient, String) async throws -> Void
        var count: @Sendable (GreenroomClient) async throws -> Int
    }

    private func room(_ host: GreenroomClient) async throws -> Room {
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
        let target = try await BenchTarget.start(options, environment: ["GREENROOM_MEETING_PARTICIPANT_LIMIT": String(participants + 1)])
        defer { target.stop() }
        let host = GreenroomClient(serverURL: target.baseURL)
        try await host.connect(token: try await target.token("bench-host", grants: ["app:*", MeetingGrant.allowMod, BenchTarget.unmetered]))
        let room = try await room(host)
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
                                                       inside: inside, failed: failed, promise: promise)
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
        await host.disconnect()

        var latencies = Latencies()
        var delivered = 0
        for result in all {
            delivered += result.latencies.count
            for milliseconds in result.latencies { latencies.record(milliseconds: milliseconds) }
        }
        let expected = inside.value * events
        var figures: [String: RawJSON] = [
            "bench": "room", "room": .string(meeting ? "meeting" : "live"), "participants": .number(Double(participants)), "inside": .number(Double(inside.value)),
            "failed": .number(Double(failed.value)), "enterSeconds": BenchReport.rounded(enterSeconds),
            "participantCount": .number(Double(participantCount)),
            "countEvents": .number(Double(countEvents)),
            "events": .number(Double(events)), "rate": .number(rate), "sendSeconds": BenchReport.rounded(sendSeconds),
            "expected": .number(Double(expected)), "delivered": .number(Double(delivered)), "lost": .number(Double(expected - delivered)),
        ].merging(latencies.figures()) { _, new in new }
        if let before = memoryBefore, let after = memoryInside {
            figures["serverMemoryBeforeMB"] = BenchReport.rounded(Double(before) / 1_048_576, 1)
            figures["serverMemoryInsideMB"] = BenchReport.rounded(Double(after) / 1_048_576, 1)
            if inside.value > 0 { figures["bytesPerParticipant"] = .number(Double((after - before) / inside.value)) }
        }
        if let before = cpuBefore, let after = cpuAfter, delivered > 0 {
            figures["serverCpuMicrosecondsPerDelivery"] = BenchReport.rounded((after - before) / Double(delivered) * 1_000_000, 2)
        }
        try BenchReport.figures(figures)
        if inside.value < participants || delivered < expected || participantCount != participants { throw ExitCode(2) }
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
    }

    private static let stampKey = Array(#""t":""#.utf8)
    private let enter: String
    private let stream: String
    private let expected: Int
    private let inside: Tally
    private let failed: Tally
    private let promise: EventLoopPromise<Result>
    private var step = 0
    private var result = Result()

    init(request: String, timeout: TimeAmount, enter: String, stream: String, expected: Int, inside: Tally, failed: Tally, promise: EventLoopPromise<Result>) {
        self.enter = enter
        self.stream = stream
        self.expected = expected
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
                failed.add()
                finish(context)
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
        guard let sent = BenchRawClient.number(after: Self.stampKey, in: view) else { return }
        result.latencies.append((Date().timeIntervalSince1970 - sent) * 1000)
        if result.latencies.count >= expected { finish(context) }
    }

    private func command(_ text: String, _ context: ChannelHandlerContext) {
        send(BenchRawClient.maskedFrame(opcode: 1, payload: Array(text.utf8)), context)
    }

    override func report(error: (any Error)?) {
        promise.succeed(result)
    }
}
