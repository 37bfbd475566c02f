import ArgumentParser
import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer

/// `greenroom bench media`: one stage with P publishers and V viewers through the server's
/// own Janus (`serve --media`, ICE on loopback). Publishers are headless Chromiums on the demo
/// page with fake cameras and microphones; viewers are lighter: receive-only peer
/// connections, several per headless Chromium page (`--per-page`), each with its own
/// Greenroom connection and participant, decoding every publisher's video and audio. With
/// `--turn-viewers N`, N more viewers connect only through a coturn the bench runs, over TCP
/// (`iceTransportPolicy: relay`, with the TURN credentials `media.iceServers` hands them).
struct BenchMedia: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "media",
        abstract: "A stage with P publishers and V viewers in headless Chromium: join to first decoded frame, frames decoded per second, Greenroom's and Janus's CPU per forwarded stream; with --turn-viewers, the same through TURN over TCP and coturn's CPU per relayed stream.")

    @Option(help: "Publishers (one headless Chromium each, on the demo page).") var publishers: Int = 1
    @Option(help: "Viewers (receive-only peer connections).") var viewers: Int = 10
    @Option(name: .customLong("per-page"), help: "Viewers per headless Chromium page.") var perPage: Int = 10
    @Option(help: "Seconds of the measuring window, once every viewer decodes.") var seconds: Int = 15
    @Option(name: .customLong("turn-viewers"), help: "Viewers, besides --viewers, that connect only through TURN over TCP (a coturn the bench runs).") var turnViewers: Int = 0
    @Option(help: "Chromium (GREENROOM_CHROMIUM, or chromium on PATH).") var chromium: String?
    @Option(help: "coturn's turnserver, for --turn-viewers (GREENROOM_TURNSERVER, or turnserver on PATH).") var turnserver: String?
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard publishers > 0, viewers > 0, perPage > 0, seconds > 0, turnViewers >= 0 else {
            throw ValidationError("sizes must be positive (--turn-viewers may be 0)")
        }
        guard options.server == nil else { throw ValidationError("bench media starts its own server (with --media) and measures its Janus") }
        guard let chromium = chromium ?? ProcessInfo.processInfo.environment["GREENROOM_CHROMIUM"] ?? Serve.onPath("chromium") else {
            throw ValidationError("bench media needs Chromium: apt-get install chromium, or --chromium PATH")
        }
        let turn = turnViewers > 0 ? try await BenchTURN.start(turnserver) : nil
        defer { turn?.stop() }
        let target = try await BenchTarget.start(options, serveArguments: ["--media", "--media-ice-interfaces", "lo"] + (turn?.serveArguments ?? []))
        defer { target.stop() }
        let browsers = HeadlessBrowsers(chromium: chromium)
        defer { browsers.stopAll() }
        let meetingId = "bench-\(UUID().uuidString.prefix(8).lowercased())"
        let stream = "meeting:\(meetingId)"

        // The bench's own participant: watches the feeds and collects the pages' reports.
        let client = GreenroomClient(configuration: ClientConfiguration(serverURL: target.baseURL))
        try await client.connect(token: try await target.token("bench-observer"))
        _ = try await client.send(MeetingOperation.join, args: MeetingJoinArgs(meetingId: meetingId, participantId: "bench-observer", name: "bench", mode: .RECV_ONLY))
        guard let serverPid = target.process?.pid,
              let janusPid = try await Self.waitFor("the server's Janus", seconds: 30, { ProcStat.children(of: serverPid, named: "janus").first }) else {
            throw ValidationError("the server started no Janus (is janus on PATH?)")
        }

        // The server answers media operations once its Janus session is open (which also
        // makes the room): a demo page that joins before that does not publish.
        guard try await Self.waitFor("the server's media", seconds: 60, {
            try await client.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: stream)).streams.isEmpty ? true : nil
        }) != nil else { throw ValidationError("the server's media did not become available within a minute") }
        BenchReport.progress("\(publishers) publishers joining \(stream)")
        for index in 0..<publishers {
            let token = try await target.token("pub-\(index)")
            await browsers.open("\(target.baseURL.absoluteString)/demo/?join=1&token=\(token)&meeting=\(meetingId)&participant=pub-\(index)&mode=SEND_AND_RECV")
        }
        guard try await Self.waitFor("the publishers' feeds", seconds: 60, {
            try await client.send(MediaOperation.feeds, args: MediaRoomRef(stream: stream)).feeds.count >= publishers ? true : nil
        }) != nil else { throw ValidationError("the publishers did not publish within a minute") }

        let directPages = (viewers + perPage - 1) / perPage
        let relayedPages = (turnViewers + perPage - 1) / perPage
        let pages = directPages + relayedPages
        BenchReport.progress("\(viewers) viewers joining, \(perPage) per page in \(directPages) pages" + (turn == nil ? "" : "; \(turnViewers) through TURN/TCP in \(relayedPages)"))
        let page = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-bench-viewers-\(UUID().uuidString).html")
        try Data(Self.viewerPage.utf8).write(to: page)
        defer { try? FileManager.default.removeItem(at: page) }
        for index in 0..<pages {
            let relayed = index >= directPages
            let (prefix, count, slot) = relayed ? ("turn-viewer", turnViewers, index - directPages) : ("viewer", viewers, index)
            let names = (slot * perPage..<min(count, (slot + 1) * perPage)).map { "\(prefix)-\($0)" }
            var tokens: [String] = []
            for name in names { tokens.append(try await target.token(name)) }
            var url = URLComponents(url: page, resolvingAgainstBaseURL: false)!
            url.queryItems = [
                URLQueryItem(name: "ws", value: target.webSocketURL), URLQueryItem(name: "meeting", value: meetingId),
                URLQueryItem(name: "page", value: String(index)), URLQueryItem(name: "tokens", value: tokens.joined(separator: ",")),
                URLQueryItem(name: "names", value: names.joined(separator: ",")), URLQueryItem(name: "relay", value: relayed ? "1" : "0"),
            ]
            await browsers.open(url.string ?? "")
        }
        var ready: [[String: RawJSON]] = try await Self.waitFor("every page's viewers", seconds: 60 + 20 * pages, {
            let reports = try await Self.reports(client, meetingId, kind: "ready")
            return reports.count >= pages ? reports : nil
        }) ?? []
        if ready.isEmpty { ready = try await Self.reports(client, meetingId, kind: "ready") }
        for errors in ready.compactMap({ $0["errors"]?.arrayValue }) where !errors.isEmpty { BenchReport.progress("viewer errors: \(errors)") }
        let isRelayed = { (report: [String: RawJSON]) in (report["page"]?.numberValue ?? 0) >= Double(directPages) }
        let relayedFirst = Self.numbers(ready.filter(isRelayed), "first")
        let relayedPaths = ready.filter(isRelayed).flatMap { $0["paths"]?.arrayValue ?? [] }.compactMap(\.stringValue)
        ready = ready.filter { !isRelayed($0) }
        let decodedFirst = Self.numbers(ready, "first")
        let failedViewers = ready.reduce(0) { $0 + Int($1["failed"]?.numberValue ?? 0) } + (directPages - ready.count) * perPage

        BenchReport.progress("\(decodedFirst.count) of \(viewers * publishers) viewer streams decode; measuring \(seconds) s")
        let machineBefore = ProcStat.machineTicks()
        let (serverBefore, janusBefore) = (ProcStat.cpuSeconds(pid: serverPid), ProcStat.cpuSeconds(pid: janusPid))
        let turnBefore = turn.flatMap { ProcStat.cpuSeconds(pid: $0.pid) }
        let from = Date()
        try await Task.sleep(for: .seconds(seconds))
        let to = Date()
        let (serverAfter, janusAfter) = (ProcStat.cpuSeconds(pid: serverPid), ProcStat.cpuSeconds(pid: janusPid))
        let turnAfter = turn.flatMap { ProcStat.cpuSeconds(pid: $0.pid) }
        let machineAfter = ProcStat.machineTicks()
        let window: [String: RawJSON] = ["from": .number((from.timeIntervalSince1970 * 1000).rounded()), "to": .number((to.timeIntervalSince1970 * 1000).rounded())]
        _ = try await client.send(MeetingOperation.publish, args: PubSubPublishArgs(meetingId: meetingId, topic: "BENCH-STOP", message: "stop", payload: window))
        let rates: [[String: RawJSON]] = try await Self.waitFor("every page's frame rates", seconds: 30, {
            let reports = try await Self.reports(client, meetingId, kind: "fps")
            return reports.count >= ready.count + relayedPages ? reports : nil
        }) ?? []
        let relayedFps = Self.numbers(rates.filter(isRelayed), "fps")
        let fps = Self.numbers(rates.filter { !isRelayed($0) }, "fps")

        let elapsed = to.timeIntervalSince(from)
        // Each publisher's feed goes to every viewer and to every other publisher's page.
        let relayedStreams = relayedFirst.count
        let forwarded = Double(publishers * (viewers - failedViewers + publishers - 1) + relayedStreams)
        var figures: [String: RawJSON] = [
            "publishers": .number(Double(publishers)), "viewers": .number(Double(viewers)), "viewersPerPage": .number(Double(perPage)),
            "viewerStreamsDecoding": .number(Double(decodedFirst.count)), "viewersFailed": .number(Double(failedViewers)),
            "forwardedFeeds": .number(forwarded), "seconds": BenchReport.rounded(elapsed, 1),
        ]
        if !decodedFirst.isEmpty {
            figures["joinToFirstFrameP50Ms"] = .number(Self.percentile(decodedFirst, 50))
            figures["joinToFirstFrameP99Ms"] = .number(Self.percentile(decodedFirst, 99))
            figures["joinToFirstFrameMaxMs"] = .number(decodedFirst.last ?? 0)
        }
        if !fps.isEmpty {
            figures["decodedFpsP50"] = .number(Self.percentile(fps, 50))
            figures["decodedFpsP10"] = .number(Self.percentile(fps, 10))
            figures["decodedFpsMin"] = .number(fps.first ?? 0)
        }
        if let serverBefore, let serverAfter, let janusBefore, let janusAfter {
            let server = (serverAfter - serverBefore) / elapsed * 100
            let janus = (janusAfter - janusBefore) / elapsed * 100
            figures["greenroomCpuPercent"] = BenchReport.rounded(server, 1)
            figures["janusCpuPercent"] = BenchReport.rounded(janus, 1)
            if forwarded > 0 {
                figures["greenroomCpuPercentPerForwardedFeed"] = BenchReport.rounded(server / forwarded, 3)
                figures["janusCpuPercentPerForwardedFeed"] = BenchReport.rounded(janus / forwarded, 3)
            }
        }
        if let before = machineBefore, let after = machineAfter, after.total > before.total {
            figures["machineBusyPercent"] = BenchReport.rounded(100 * (1 - Double(after.idle - before.idle) / Double(after.total - before.total)), 1)
        }
        if turn != nil {
            var relayed: [String: RawJSON] = [
                "viewers": .number(Double(turnViewers)), "streamsDecoding": .number(Double(relayedStreams)),
                "paths": .array(Array(Set(relayedPaths)).sorted().map(RawJSON.string)),
            ]
            if !relayedFirst.isEmpty {
                relayed["joinToFirstFrameP50Ms"] = .number(Self.percentile(relayedFirst, 50))
                relayed["joinToFirstFrameP99Ms"] = .number(Self.percentile(relayedFirst, 99))
            }
            if !relayedFps.isEmpty {
                relayed["decodedFpsP50"] = .number(Self.percentile(relayedFps, 50))
                relayed["decodedFpsMin"] = .number(relayedFps.first ?? 0)
            }
            if let turnBefore, let turnAfter {
                let cpu = (turnAfter - turnBefore) / elapsed * 100
                relayed["coturnCpuPercent"] = BenchReport.rounded(cpu, 2)
                // A relayed stream: one publisher's audio and video to one viewer, through coturn.
                if relayedStreams > 0 { relayed["coturnCpuPercentPerRelayedStream"] = BenchReport.rounded(cpu / Double(relayedStreams), 3) }
            }
            figures["turnTCP"] = .dictionary(relayed)
        }
        try BenchReport.figures(figures)
        // Every viewer must decode every publisher, every relayed one through a relay, and
        // every page report its frame rates.
        let relayedOK = relayedStreams == turnViewers * publishers && relayedPaths.allSatisfy { $0 == "relay/tcp" }
        if decodedFirst.count < viewers * publishers || !relayedOK || rates.count < pages { throw ExitCode(2) }
    }

    /// The pages' reports of a kind (`ready`, `fps`), one per page.
    static func reports(_ client: GreenroomClient, _ meetingId: String, kind: String) async throws -> [[String: RawJSON]] {
        let messages = try await client.send(MeetingOperation.messages, args: PubSubTopicArgs(meetingId: meetingId, topic: "BENCH"))
        var byPage: [Double: [String: RawJSON]] = [:]
        for message in messages where message.message == kind {
            byPage[message.payload.json["page"]?.numberValue ?? -1] = message.payload.json
        }
        return Array(byPage.values)
    }

    /// The numbers of the pages' reports' `key` arrays, together, sorted (a viewer that
    /// reported none, `null`, is left out).
    static func numbers(_ reports: [[String: RawJSON]], _ key: String) -> [Double] {
        reports.flatMap { $0[key]?.arrayValue ?? [] }.compactMap(\.numberValue).sorted()
    }

    /// The value at `percent` of sorted `values` (nearest rank).
    static func percentile(_ sorted: [Double], _ percent: Double) -> Double {
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// Polls `probe` every quarter second until it gives a value, for at most `seconds`.
    static func waitFor<T>(_ what: String, seconds: Int, _ probe: () async throws -> T?) async throws -> T? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let value = try? await probe() { return value }
            try await Task.sleep(for: .milliseconds(250))
        }
        BenchReport.progress("gave up waiting for \(what) after \(seconds) s")
        return nil
    }
}

/// Headless Chromiums started with a page, each with its own profile, stopped together.
final class HeadlessBrowsers: Sendable {
    let chromium: String
    private let started = Locked<[(ChildProcess, String)]>([])

    init(chromium: String) { self.chromium = chromium }

    /// Starts a browser on `url`; one that fails to start is reported and left out.
    func open(_ url: String) async {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-bench-chromium-\(UUID().uuidString)").path
        let arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--mute-audio",
            "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
            "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--user-data-dir=\(profile)", "--remote-debugging-port=0", url,
        ]
        do {
            let process = try await ChildProcess.start(chromium, arguments: arguments, grace: .seconds(5))
            started.withLock { $0.append((process, profile)) }
        } catch {
            BenchReport.progress("cannot start Chromium: \(error)")
        }
    }

    /// Stops every browser and removes its profile.
    func stopAll() {
        for (process, profile) in started.withLock({ $0 }) {
            process.stopAndWait()
            try? FileManager.default.removeItem(atPath: profile)
        }
    }
}
