import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomMedia
@testable import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HLS livestream of a stage (issue 17): headless Chromiums publish fake cameras and
/// microphones through a real Janus, Janus forwards their RTP, a real ffmpeg composes it into
/// HLS, and ffprobe and ffmpeg read what Greenroom serves.
@Suite("Livestreams", .serialized, .wholeRun)
struct LivestreamTests {
    /// What the tests read the HLS with.
    static func tools() -> (ffmpeg: String, ffprobe: String)? { TestEnvironment.ffmpeg(for: "the livestream tests") }

    /// The playlist's text, or `nil` while it is not served (404).
    static func playlist(_ server: TestServer, _ stream: String, token: String) async throws -> String? {
        let url = URL(string: "\(server.url.absoluteString)\(LivestreamInfo.playlistPath(stream))?token=\(token)")!
        let (data, status) = try await HTTPTransport.data(for: URLRequest(url: url))
        return status == 200 ? String(decoding: data, as: UTF8.self) : nil
    }

    /// The segments a playlist names, oldest first (without their query).
    static func segments(_ playlist: String) -> [String] {
        playlist.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { String($0.split(separator: "?")[0]) }
    }

    /// The playlist's media sequence number.
    static func mediaSequence(_ playlist: String) -> Int? {
        playlist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") }.flatMap { Int($0.dropFirst(22)) }
    }

    /// The mean colour (red, green, blue) of the 640×360 tile at `column` in the first frame
    /// of the newest segment.
    static func tileColour(_ server: TestServer, _ stream: String, token: String, ffmpeg: String, column: Int) async throws -> [Int] {
        let list = try #require(try await playlist(server, stream, token: token))
        let segment = try #require(segments(list).last)
        let url = "\(server.url.absoluteString)/v1/livestreams/\(stream)/\(segment)?token=\(token)"
        let frame = try await ChildProcess.run(ffmpeg, ["-v", "error", "-i", url, "-frames:v", "1",
                                                      "-vf", "crop=640:360:\(640 * column):0,scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(frame.exit.succeeded, "\(String(decoding: frame.errors, as: UTF8.self))")
        return frame.output.prefix(3).map(Int.init)
    }

    /// ffprobe's streams of the newest segment: codec, width and height.
    static func newestSegment(_ server: TestServer, _ stream: String, token: String, ffprobe: String) async throws -> [RawJSON] {
        let list = try #require(try await playlist(server, stream, token: token))
        let segment = try #require(segments(list).last)
        let url = "\(server.url.absoluteString)/v1/livestreams/\(stream)/\(segment)?token=\(token)"
        let probe = try await ChildProcess.run(ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", url])
        #expect(probe.exit.succeeded, "\(String(decoding: probe.errors, as: UTF8.self))")
        return try RawJSON(json: probe.output)["streams"]?.arrayValue ?? []
    }

    @Test("a moderator starts the stage's livestream: the playlist appears, a segment is H.264 640×360 and AAC, ffmpeg decodes 5 s of it through the token URL; ffmpeg killed, or stalled, is noticed and restarted with the media sequence kept; a reader without access gets 403; the node's bound refuses another; a SIGNALLING_ONLY viewer's demo page plays it and switches to WebRTC when invited on stage; stopping removes the files")
    func livestream() async throws {
        guard let programs = MediaPrograms.find(for: "the livestream tests", browsers: true), let tools = Self.tools() else { return }
        try await withMediaServer(programs, { config in
            config.ffmpegPath = tools.ffmpeg
            config.livestreamLimit = 1
        }) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "show", participant: "host", mode: "SEND_AND_RECV"))
            let (_, meeting, recorder) = try await server.joined("producer", meeting: "show", as: "producer", mode: .SIGNALLING_ONLY,
                                                                 grants: [MeetingGrant.allowMod])
            try await eventually("the host publishes", timeout: .seconds(30)) {
                try await server.server.core.media.feeds(in: "meeting:show").contains { $0.participantId == "host" }
            }
            let token = try await server.token("producer", grants: [MeetingGrant.allowMod])

            let asked = ContinuousClock.now
            let started = try await meeting.startLivestream()
            #expect(started.status == .LIVESTREAM_STARTING)
            #expect(started.playlist == "/v1/livestreams/meeting:show/index.m3u8")
            do {
                try await recorder.wait("the livestream started", timeout: .seconds(30)) { $0.calls.contains("livestream:LIVESTREAM_STARTED") }
            } catch {
                let folder = server.server.core.livestreams.folder("meeting:show")
                let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                let log = (try? String(contentsOf: folder.appendingPathComponent("ffmpeg.log"), encoding: .utf8)) ?? "no log"
                let sdp = (try? String(contentsOf: folder.appendingPathComponent("tile0.sdp"), encoding: .utf8)) ?? "no SDP"
                Issue.record("the livestream did not start: \(await recorder.calls); files \(files); SDP \(sdp); ffmpeg's log: \(log.suffix(3000))")
                throw error
            }
            // Said, not checked (tests never time): the issue asks for the playlist within 10 s.
            print("livestream asked → LIVESTREAM_STARTED: \(ContinuousClock.now - asked)")
            #expect(await recorder.calls.filter { $0.hasPrefix("livestream:") } == ["livestream:LIVESTREAM_STARTING", "livestream:LIVESTREAM_STARTED"])
            #expect(meeting.livestream?.layout == ["host"])
            #expect(try await meeting.startLivestream().status == .LIVESTREAM_STARTED, "starting it again answers its state")

            let streams = try await Self.newestSegment(server, "meeting:show", token: token, ffprobe: tools.ffprobe)
            #expect(streams.map { $0["codec_name"]?.stringValue ?? "?" }.sorted() == ["aac", "h264"])
            let video = try #require(streams.first { $0["codec_type"]?.stringValue == "video" })
            #expect(video["width"]?.numberValue == 640 && video["height"]?.numberValue == 360)

            // A player: the SDK's playback URL, 5 s decoded frame by frame (30 per second).
            let url = try #require(try await meeting.livestreamPlaybackURL()).absoluteString
            let decoded = try await ChildProcess.run(tools.ffmpeg, ["-v", "error", "-i", url, "-t", "5", "-map", "0:v", "-f", "framecrc", "-"])
            #expect(decoded.exit.succeeded && decoded.errors.isEmpty, "\(String(decoding: decoded.errors, as: UTF8.self))")
            let frames = String(decoding: decoded.output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("0,") }.count
            #expect(frames >= 140, "decoded \(frames) frames of 5 s")

            // ffmpeg dies: the state says so, it is started again, the media sequence goes on.
            let engine = server.server.core.livestreams
            let first = try #require(try await Self.playlist(server, "meeting:show", token: token))
            let before = try #require(Self.mediaSequence(first))
            let pid = try #require(engine.running.withLock { $0["meeting:show"]?.process?.pid })
            #expect(kill(pid, SIGKILL) == 0)
            try await eventually("the state says the encoder exited", timeout: .seconds(10)) {
                try await meeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "show")).livestream?.reason == "encoderExited"
            }
            try await eventually("the livestream is started again", timeout: .seconds(30)) {
                let info = try await meeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "show")).livestream
                return info?.status == .LIVESTREAM_STARTED
            }
            let after = try #require(try await Self.playlist(server, "meeting:show", token: token))
            let sequence = try #require(Self.mediaSequence(after))
            #expect(sequence >= before, "the media sequence goes on: \(before) → \(after)")
            #expect(after.contains("#EXT-X-DISCONTINUITY"))

            // ffmpeg stops writing (stopped, as a process that fell behind or hangs): after
            // ten seconds without a segment it is noticed and replaced.
            let stalled = try #require(engine.running.withLock { $0["meeting:show"]?.process?.pid })
            #expect(kill(stalled, SIGSTOP) == 0)
            try await eventually("the state says the encoder stalled", timeout: .seconds(30)) {
                try await meeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "show")).livestream?.reason == "encoderStalled"
            }
            try await eventually("the livestream is started again after the stall", timeout: .seconds(30)) {
                try await meeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "show")).livestream?.status == .LIVESTREAM_STARTED
            }
            #expect(engine.running.withLock { $0["meeting:show"]?.process?.pid } != stalled)
            #expect(kill(stalled, 0) != 0, "the stalled ffmpeg is gone")

            // Readers: one without access is refused for the playlist and a segment, none without a token.
            let segment = try #require(Self.segments(after).last)
            let outsider = try await server.token("outsider")
            for path in [LivestreamInfo.playlistPath("meeting:show"), "/v1/livestreams/meeting:show/\(segment)"] {
                for (query, status) in [("?token=\(outsider)", 403), ("", 401), ("?token=\(token)", 200)] {
                    let (_, answered) = try await HTTPTransport.data(for: URLRequest(url: URL(string: "\(server.url.absoluteString)\(path)\(query)")!))
                    #expect(answered == status, "\(path)\(query.prefix(7))")
                }
            }
            for name in ["tile0.sdp", "ffmpeg.log", "..%2Fshow"] {
                let (_, answered) = try await HTTPTransport.data(for: URLRequest(url: URL(string: "\(server.url.absoluteString)/v1/livestreams/meeting:show/\(name)?token=\(token)")!))
                #expect(answered == 404, "\(name) is not served")
            }

            // The node runs one at most here.
            let (_, other, _) = try await server.joined("producer", meeting: "other", as: "producer2", mode: .SIGNALLING_ONLY, grants: [MeetingGrant.allowMod])
            #expect(await refusal { _ = try await other.startLivestream() } == .livestreamLimitReached)

            // Seed 001's viewer: SIGNALLING_ONLY, it watches the livestream on the demo page;
            // invited on stage, it switches to WebRTC and is on the livestream itself.
            let viewer = try await driver.open()
            try await viewer.go(try await server.demoURL("vic", meeting: "show", participant: "vic", mode: "SIGNALLING_ONLY", extra: "&autoAccept=1"))
            try await eventually("the viewer plays the livestream", timeout: .seconds(30)) {
                let played = try await viewer.run("return window.demo.livestreamStats()")
                return played["frames"]?.numberValue ?? 0 > 30 && played["width"]?.numberValue == 640
            }
            try await host.run("return window.demo.invite('vic')")
            try await viewer.waitForMedia(from: "host", what: "on stage, the viewer decodes the host over WebRTC")
            #expect(try await viewer.run("return window.demo.livestreamStats()")["watching"]?.boolValue == false)
            try await eventually("the invited viewer is on the livestream beside the host", timeout: .seconds(30)) {
                try await meeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "show")).livestream?.layout == ["host", "vic"]
            }
            await viewer.close()

            // Stopping removes the files.
            let folder = engine.folder("meeting:show")
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("index.m3u8").path))
            let stopped = try await meeting.stopLivestream()
            #expect(stopped.status == .LIVESTREAM_STOPPED)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
            #expect(try await Self.playlist(server, "meeting:show", token: token) == nil)
            try await recorder.wait("the stop is announced") { $0.calls.contains("livestream:LIVESTREAM_STOPPED") }
            #expect(try await other.startLivestream().status == .LIVESTREAM_STARTING, "a slot is free again")
            _ = try await other.stopLivestream()
            await host.close()
        }
    }
}

extension LivestreamTests {
    @Test("the pinned participants are on the picture side by side: pinning a second publisher widens it from 640 to 1280 pixels, unpinning the first leaves the second alone; with nobody pinned, every publisher; a screen share renegotiated into a feed is on the picture with nobody pinned, alone for a SHARE pin, beside the camera for SHARE_AND_CAM; a camera turned off leaves a grey tile and no stall")
    func layout() async throws {
        guard let programs = MediaPrograms.find(for: "the livestream tests", browsers: true), let tools = Self.tools() else { return }
        try await withMediaServer(programs, { config in config.ffmpegPath = tools.ffmpeg }) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "duo", participant: "host", mode: "SEND_AND_RECV"))
            let (client, meeting, _) = try await server.joined("producer", meeting: "duo", as: "producer", mode: .SIGNALLING_ONLY,
                                                               grants: [MeetingGrant.allowMod])
            let token = try await server.token("producer", grants: [MeetingGrant.allowMod])
            func publishing(_ participant: String) async throws -> Bool {
                try await server.server.core.media.feeds(in: "meeting:duo").contains { $0.participantId == participant }
            }
            func pin(_ participant: String, _ on: Bool, _ type: PinType = .CAM) async throws {
                let _: PinState = try await client.send(on ? MeetingOperation.pin : MeetingOperation.unpin,
                                                        args: MeetingPinArgs(meetingId: "duo", participantId: participant, pinType: type))
            }
            /// Waits until the livestream shows `layout` (with the screen shares of `sharing`) and
            /// its newest segment is `width` wide.
            func shows(_ layout: [String], sharing: [String]? = nil, width: Double, _ what: String) async throws {
                let changed = ContinuousClock.now
                try await eventually(what, timeout: .seconds(40)) {
                    let info = try await client.send(MeetingOperation.get, args: MeetingRef(meetingId: "duo")).livestream
                    guard info?.layout == layout, info?.sharing == sharing, info?.status == .LIVESTREAM_STARTED,
                          let list = try await Self.playlist(server, "meeting:duo", token: token), !Self.segments(list).isEmpty else { return false }
                    let video = try await Self.newestSegment(server, "meeting:duo", token: token, ffprobe: tools.ffprobe)
                        .first { $0["codec_type"]?.stringValue == "video" }
                    return video?["width"]?.numberValue == width && video?["height"]?.numberValue == 360
                }
                // Said, not checked (tests never time): the issue asks for a few seconds.
                print("livestream layout \(layout): in a segment after \(ContinuousClock.now - changed)")
            }

            try await eventually("the host publishes", timeout: .seconds(30)) { try await publishing("host") }
            try await pin("host", true)
            _ = try await meeting.startLivestream()
            try await shows(["host"], width: 640, "the pinned host alone, 640 wide")

            let guest = try await driver.open()
            try await guest.go(try await server.demoURL("guestuser", meeting: "duo", participant: "guest", mode: "SEND_AND_RECV"))
            try await eventually("the guest publishes", timeout: .seconds(30)) { try await publishing("guest") }
            try await Task.sleep(for: .seconds(2))
            #expect(try await client.send(MeetingOperation.get, args: MeetingRef(meetingId: "duo")).livestream?.layout == ["host"],
                    "a publisher nobody pinned is not on the picture while someone is pinned")

            try await pin("guest", true)
            try await shows(["host", "guest"], width: 1280, "pinning the guest puts it beside the host, 1280 wide")
            if let pid = server.server.core.livestreams.running.withLock({ $0["meeting:duo"]?.process?.pid }),
               let before = Self.cpuSeconds(pid) {
                try await Task.sleep(for: .seconds(5))
                // Said, not checked: BENCHMARKS.md records it.
                print("livestream ffmpeg CPU for two 640×360 tiles: \(String(format: "%.1f", 100 * ((Self.cpuSeconds(pid) ?? before) - before) / 5)) % of a core")
            }
            try await pin("host", false)
            try await shows(["guest"], width: 640, "unpinning the host leaves the guest alone")
            try await pin("guest", false)
            try await shows(["host", "guest"], width: 1280, "with nobody pinned, every publisher")

            // The host shares its screen (a red canvas, renegotiated into its feed): with nobody
            // pinned it is on the picture too; a SHARE pin shows the share alone, SHARE_AND_CAM
            // the camera and the share.
            let watcher = try await server.client("watcher", grants: [MeetingGrant.allowMod])
            let onDuo = try await watcher.subscribe(to: "meeting:duo")
            _ = try await host.run("return window.demo.shareScreen({ fake: true, color: '#d02020' })")
            // A share that names no video track of the offer is refused, and the feed goes on.
            let refused = try await host.run("""
                return window.demo.send('media.publish', { stream: 'meeting:duo', shares: ['9'],
                  jsep: { type: 'offer', sdp: 'v=0\\r\\nm=audio 9 UDP/TLS/RTP/SAVPF 111\\r\\na=mid:0\\r\\n' } }).then(() => 'accepted', (error) => error.name)
                """)
            #expect(refused.stringValue == "invalidParameterValue", "\(refused)")
            let updated = try await withTimeout(.seconds(20), "media.updated") { () -> MediaEvent? in
                for await case .event(let event) in onDuo.updates where event.type == MediaEventType.updated {
                    return try event.data.decode(as: MediaEvent.self)
                }
                return nil
            }
            #expect(updated?.feed.participantId == "host" && updated?.feed.tracks.filter(\.isShare).count == 1, "\(String(describing: updated))")
            #expect(try await server.server.core.media.feeds(in: "meeting:duo").first { $0.participantId == "host" }?.tracks.contains { $0.isShare } == true,
                    "the stored feed has the share")
            try await shows(["host", "guest"], sharing: ["host"], width: 1920, "with nobody pinned, the host's camera and screen and the guest")
            func red(_ column: Int) async throws -> Bool {
                let colour = try await Self.tileColour(server, "meeting:duo", token: token, ffmpeg: tools.ffmpeg, column: column)
                return colour.count == 3 && colour[0] > 150 && colour[1] < 90 && colour[2] < 90
            }
            let tiles = [try await red(0), try await red(1), try await red(2)]
            #expect(tiles == [false, true, false], "the second tile is the red screen, the others cameras")
            try await pin("host", true, .SHARE)
            try await shows(["host"], sharing: ["host"], width: 640, "a SHARE pin shows the host's screen alone")
            let shareAlone = try await red(0)
            #expect(shareAlone, "the tile is the red screen")
            try await pin("host", true, .CAM)
            try await shows(["host"], sharing: ["host"], width: 1280, "SHARE and CAM pinned show the camera and the screen")
            let both = [try await red(0), try await red(1)]
            #expect(both == [false, true], "the camera, then the red screen")

            // The host turns its camera off: its camera tile goes grey (its audio stays) rather
            // than holding the picture back, and the encoder is not restarted as stalled.
            _ = try await host.run("return window.demo.setCamera(false)")
            func grey(_ column: Int) async throws -> Bool {
                let colour = try await Self.tileColour(server, "meeting:duo", token: token, ffmpeg: tools.ffmpeg, column: column)
                return colour.count == 3 && colour.allSatisfy { (30...70).contains($0) }
            }
            try await eventually("the host's camera tile goes grey", timeout: .seconds(40)) {
                let info = try await client.send(MeetingOperation.get, args: MeetingRef(meetingId: "duo")).livestream
                guard info?.status == .LIVESTREAM_STARTED else { return false }
                let cameraGrey = try await grey(0), screenRed = try await red(1)
                return cameraGrey && screenRed
            }
            try await Task.sleep(for: .seconds(12))
            let info = try await client.send(MeetingOperation.get, args: MeetingRef(meetingId: "duo")).livestream
            #expect(info?.status == .LIVESTREAM_STARTED && info?.reason == nil && info?.layout == ["host"], "\(String(describing: info))")
            let stillGrey = try await grey(0)
            #expect(stillGrey, "the camera tile is still grey, the picture goes on")
            _ = try await meeting.stopLivestream()
            for browser in [host, guest] { await browser.close() }
        }
    }
}

extension LivestreamTests {
    @Test("seed 000: a live event's livestream runs while it is ongoing: the publishing host is on it, a participant inside plays it, an outsider gets 403; ending the event stops it and removes its files")
    func liveEvent() async throws {
        guard let programs = MediaPrograms.find(for: "the livestream tests", browsers: true), let tools = Self.tools() else { return }
        try await withMediaServer(programs, { config in config.ffmpegPath = tools.ffmpeg }) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let client = try await server.client("hostuser")
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = ["hostuser"]
            let live = try await client.createLiveEvent(config: params)
            try await live.enterAsHost()
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let media = await live.attachMedia(BrowserEngine(browser: page))
            try await live.setEventReady()
            try await eventually("the host publishes once the event is ready", timeout: .seconds(30)) { await media.isPublishing }
            #expect(live.livestream == nil, "no livestream before the event is ongoing")

            try await live.startEvent()
            try await eventually("the livestream started", timeout: .seconds(30)) { live.livestream?.status == .LIVESTREAM_STARTED }
            #expect(live.livestream?.layout == ["hostuser"])
            let stream = "live:\(live.liveEventId)"

            let viewer = try await server.client("pat")
            let watched = try await viewer.getLiveEvent(id: live.liveEventId)
            try await watched.enter()
            #expect(watched.livestream?.status == .LIVESTREAM_STARTED, "a participant entering sees it")
            let token = try await server.token("pat")
            let streams = try await Self.newestSegment(server, stream, token: token, ffprobe: tools.ffprobe)
            #expect(streams.map { $0["codec_name"]?.stringValue ?? "?" }.sorted() == ["aac", "h264"])
            let outsider = try await server.token("outsider")
            #expect(try await Self.playlist(server, stream, token: outsider) == nil)
            let (_, refused) = try await HTTPTransport.data(for: URLRequest(url: URL(string: "\(server.url.absoluteString)\(LivestreamInfo.playlistPath(stream))?token=\(outsider)")!))
            #expect(refused == 403)

            let folder = server.server.core.livestreams.folder(stream)
            try await live.endEvent()
            #expect(!FileManager.default.fileExists(atPath: folder.path))
            let ended = try await server.rest("GET", "/v1/live-events/\(live.liveEventId)")
            #expect(ended.1["livestream"]?["status"]?.stringValue == "LIVESTREAM_STOPPED")
            #expect(ended.1["livestream"]?["reason"]?.stringValue == "ended")
            await page.close()
        }
    }
}

extension LivestreamTests {
    /// The CPU time a process has used, in seconds (`/proc/PID/stat`'s utime + stime).
    static func cpuSeconds(_ pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test("glass to glass: a publisher draws its clock into its frames, a SIGNALLING_ONLY viewer's browser plays the HLS and reads the clock back from the picture; the latency and ffmpeg's CPU are printed (BENCHMARKS.md), the clock read back is the sender's; ffmpeg killed while they watch, the page's player and ffmpeg as a player go on by themselves")
    func glassToGlass() async throws {
        guard let programs = MediaPrograms.find(for: "the livestream tests", browsers: true), let tools = Self.tools() else { return }
        try await withMediaServer(programs, { config in config.ffmpegPath = tools.ffmpeg }) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "clock", participant: "host", mode: "SEND_AND_RECV", extra: "&clock=1"))
            let (_, meeting, recorder) = try await server.joined("producer", meeting: "clock", as: "producer", mode: .SIGNALLING_ONLY,
                                                                 grants: [MeetingGrant.allowMod])
            try await eventually("the host publishes", timeout: .seconds(30)) {
                try await server.server.core.media.feeds(in: "meeting:clock").contains { $0.participantId == "host" }
            }
            _ = try await meeting.startLivestream()
            try await recorder.wait("the livestream started", timeout: .seconds(30)) { $0.calls.contains("livestream:LIVESTREAM_STARTED") }
            let viewer = try await driver.open()
            try await viewer.go(try await server.demoURL("vic", meeting: "clock", participant: "vic", mode: "SIGNALLING_ONLY"))
            do {
                try await eventually("the viewer plays the livestream", timeout: .seconds(30)) {
                    try await viewer.run("return window.demo.livestreamStats()")["frames"]?.numberValue ?? 0 > 60
                }
            } catch {
                let folder = server.server.core.livestreams.folder("meeting:clock")
                let log = (try? String(contentsOf: folder.appendingPathComponent("ffmpeg.log"), encoding: .utf8)) ?? "no log"
                let list = (try? String(contentsOf: folder.appendingPathComponent("index.m3u8"), encoding: .utf8)) ?? "no playlist"
                Issue.record("viewer: \(try await viewer.run("return window.demo.livestreamStats()")) \(try await viewer.state()); host \(try await host.state()); playlist \(list); ffmpeg: \(log.suffix(2000))")
                throw error
            }
            let pid = try #require(server.server.core.livestreams.running.withLock { $0["meeting:clock"]?.process?.pid })
            let cpuBefore = try #require(Self.cpuSeconds(pid))
            let started = ContinuousClock.now
            var latencies: [Double] = []
            for _ in 0..<10 {
                try await Task.sleep(for: .seconds(1))
                let reading = try await viewer.run("return window.demo.readClock()")
                guard let latency = reading["latency"]?.numberValue else { continue }
                // A clock read back wrongly is anything but a few seconds old: the sender's
                // clock is what the picture carries.
                #expect(latency < 60_000, "the picture carries the sender's clock: \(reading)")
                latencies.append(latency)
            }
            let elapsed = ContinuousClock.now - started
            let cpu = try #require(Self.cpuSeconds(pid)) - cpuBefore
            #expect(latencies.count >= 8, "the clock was read from the livestream \(latencies.count) times of 10")
            let sorted = latencies.sorted()
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            // Said, not checked (tests never time): BENCHMARKS.md records these.
            print("livestream glass to glass (Chromium's own HLS player, one machine): median \(Int(sorted[sorted.count / 2])) ms, "
                  + "min \(Int(sorted.first ?? 0)) ms, max \(Int(sorted.last ?? 0)) ms over \(sorted.count) readings; "
                  + "ffmpeg CPU \(String(format: "%.1f", 100 * cpu / seconds)) % of a core for one 640×360 tile")

            // The encoder dies while they watch: the players recover by themselves. The page's
            // player is not reloaded and shows frames sent after the restart; ffmpeg, as a
            // player, reads on across it.
            let url = try #require(try await meeting.livestreamPlaybackURL()).absoluteString
            let reader = Task {
                try await ChildProcess.run("/usr/bin/env", ["timeout", "-s", "INT", "75", tools.ffmpeg, "-v", "error", "-i", url, "-t", "30", "-map", "0:v", "-f", "framecrc", "-"])
            }
            try await Task.sleep(for: .seconds(4))
            let killedAt = Date().timeIntervalSince1970 * 1000
            #expect(kill(pid, SIGKILL) == 0)
            try await eventually("the livestream is started again", timeout: .seconds(30)) {
                let info = try await meeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "clock")).livestream
                return info?.status == .LIVESTREAM_STARTED
                    && server.server.core.livestreams.running.withLock { $0["meeting:clock"]?.process?.pid } != pid
            }
            try await eventually("the viewer's player shows frames sent after the restart", timeout: .seconds(40)) {
                let reading = try await viewer.run("return window.demo.readClock()")
                guard let stamp = reading["stamp"]?.numberValue, let latency = reading["latency"]?.numberValue, latency < 60_000 else { return false }
                let sinceKill = (stamp - killedAt.truncatingRemainder(dividingBy: 4_294_967_296) + 4_294_967_296).truncatingRemainder(dividingBy: 4_294_967_296)
                return sinceKill > 0 && sinceKill < 120_000
            }
            let stats = try await viewer.run("return window.demo.livestreamStats()")
            #expect(stats["loads"]?.numberValue == 1 && stats["watching"]?.boolValue == true && (stats["error"] ?? .nil) == .nil,
                    "the page's player went on by itself: \(stats)")
            let read = try await reader.value
            let readFrames = String(decoding: read.output, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("0,") }.count
            print("ffmpeg as a player across the restart: \(read.exit), \(readFrames) frames, errors: \(String(decoding: read.errors, as: UTF8.self).suffix(500))")
            #expect(read.exit.succeeded && readFrames >= 600, "ffmpeg read on across the restart: \(readFrames) frames, \(read.exit)")
            _ = try await meeting.stopLivestream()
            for browser in [host, viewer] { await browser.close() }
        }
    }
}
