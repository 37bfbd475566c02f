import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomMedia
@testable import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Recordings that become videos (issue 39): two headless Chromiums publish on a stage
/// through a real Janus, the stage's livestream (a real ffmpeg) is kept while recording, and
/// the recording is made into an MP4 that the video feed processes like any upload.
@Suite("Recordings", .serialized, .wholeRun)
struct RecordingTests {
    /// The mean colour (red, green, blue) of the 640×360 tile at `column` in the frame at
    /// `time` seconds of a file.
    static func meanColour(_ file: URL, at time: Double, column: Int, ffmpeg: String) async throws -> [Int] {
        let frame = try await ChildProcess.run(ffmpeg, ["-v", "error", "-ss", String(format: "%.2f", time), "-i", file.path, "-frames:v", "1",
                                                      "-vf", "crop=640:360:\(640 * column):0,scale=1:1:flags=area", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        #expect(frame.exit.succeeded, "\(String(decoding: frame.errors, as: UTF8.self))")
        return frame.output.prefix(3).map(Int.init)
    }

    @Test("a moderator records a two-person stage: STARTING, STARTED, STOPPING, STOPPED; the livestream started for it stops with it; the recording appears as the moderator's video (video.created), ready with renditions, as long as the recorded time within a second, ffprobe showing H.264 1280×360 and AAC; a participant who is no moderator is refused; ending the meeting stops a recording, and one past its owner's quota ends without a video and leaves no file")
    func recordingBecomesVideo() async throws {
        guard let programs = MediaPrograms.find(for: "the recording tests", browsers: true), let tools = LivestreamTests.tools() else { return }
        try await withMediaServer(programs, { config in
            config.ffmpegPath = tools.ffmpeg
            config.ffprobePath = tools.ffprobe
            config.videoMaxPerUser = 1
        }) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            for name in ["alice", "bob"] {
                let page = try await driver.open()
                try await page.go(try await server.demoURL(name, meeting: "stage", participant: name, mode: "SEND_AND_RECV"))
            }
            let (_, meeting, recorder) = try await server.joined("producer", meeting: "stage", as: "producer", mode: .SIGNALLING_ONLY,
                                                                 grants: [MeetingGrant.allowMod])
            try await eventually("both publish", timeout: .seconds(60)) {
                Set(try await server.server.core.media.feeds(in: "meeting:stage").map(\.participantId)) == ["alice", "bob"]
            }
            let (_, viewing, _) = try await server.joined("viewer", meeting: "stage", as: "viewer", mode: .SIGNALLING_ONLY)
            #expect(await refusal { try await viewing.startRecording() } == .moderatorRequired)
            #expect(await refusal { try await viewing.stopRecording() } == .moderatorRequired)

            let feed = try await VideoTests().session(server, "watcher", scopes: [VideoScope.read])
            let created = Locked<[String]>([])
            let observer = feed.notificationCenter.addObserver(forName: .GRVideoCreated, object: nil, queue: nil) { note in
                if let video = note.userInfo?["video"] as? GRVideo { created.withLock { $0.append(video.id) } }
            }
            defer { feed.notificationCenter.removeObserver(observer) }

            let started = try await meeting.startRecording()
            #expect(started.status == .RECORDING_STARTING && started.owner == "producer")
            #expect(try await meeting.startRecording().owner == "producer", "starting it again answers its state")
            try await recorder.wait("the recording started", timeout: .seconds(60)) { $0.calls.contains("recording:RECORDING_STARTED") }
            let began = ContinuousClock.now
            #expect(meeting.livestream?.status == .LIVESTREAM_STARTED, "the livestream was started for it")
            try await Task.sleep(for: .seconds(7))
            let stopping = try await meeting.stopRecording()
            let recorded = ContinuousClock.now - began
            #expect(stopping.status == .RECORDING_STOPPING)
            do {
                try await recorder.wait("the recording stopped", timeout: .seconds(120)) { $0.calls.contains("recording:RECORDING_STOPPED") }
            } catch {
                Issue.record("the recording did not stop: \(await recorder.snapshot)")
                throw error
            }
            let calls = await recorder.snapshot
            #expect(calls.filter { $0.hasPrefix("recording:") }
                == ["recording:RECORDING_STARTING", "recording:RECORDING_STARTED", "recording:RECORDING_STOPPING", "recording:RECORDING_STOPPED"])
            #expect(calls.contains("livestream:LIVESTREAM_STOPPED"), "the livestream started for the recording stops with it: \(calls)")
            let info = try #require(meeting.recording)
            let videoId = try #require(info.videoId, "no video: \(info.reason ?? "?")")
            let seconds = Double(recorded.components.seconds) + Double(recorded.components.attoseconds) / 1e18
            print("recording: \(seconds) s recorded, \(info.duration ?? 0) s kept")

            try await eventually("video.created told the feed") { created.value.contains(videoId) }
            try await eventually("the video is processed", timeout: .seconds(180)) {
                let status = try await feed.video(id: videoId).status
                if status == .failed { throw GreenroomError(.internalError, "processing failed: \(try await feed.video(id: videoId).failureReason ?? "?")") }
                return status == .ready
            }
            let video = try await feed.video(id: videoId)
            #expect(video.owner == "producer" && video.title == "Recording of meeting stage")
            #expect(!(video.renditions ?? []).isEmpty)
            #expect(video.width == 1280 && video.height == 360)
            let duration = try #require(video.duration)
            #expect(abs(duration - seconds) <= 1, "a video of \(duration) s for \(seconds) s recorded")
            let original = try await feed.download(videoID: videoId)
            #expect(original.status == 200)
            let file = TemporaryPaths.make("-recording.mp4")
            try original.data.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let probe = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", file.path])
            let streams = try RawJSON(json: probe.output)["streams"]?.arrayValue ?? []
            #expect(streams.map { $0["codec_name"]?.stringValue ?? "?" }.sorted() == ["aac", "h264"])
            #expect(streams.first { $0["codec_type"]?.stringValue == "video" }?["width"]?.numberValue == 1280)
            // Both cameras from the first second to the last: neither tile is the grey of an
            // empty cell or black, and the pictures move.
            var pictures: [[Int]] = []
            for time in [1.0, duration - 1] {
                for column in 0..<2 {
                    let colour = try await Self.meanColour(file, at: time, column: column, ffmpeg: tools.ffmpeg)
                    #expect(colour.count == 3 && !colour.allSatisfy { (30...70).contains($0) } && !colour.allSatisfy { $0 < 20 },
                            "tile \(column) at \(time) s is \(colour)")
                    pictures.append(colour)
                }
            }
            print("recording tiles: \(pictures)")
            // And sound: the fake microphones' beeps, mixed.
            let volume = try await ChildProcess.run(tools.ffmpeg, ["-hide_banner", "-nostats", "-i", file.path, "-map", "0:a", "-af", "volumedetect", "-f", "null", "-"])
            let report = String(decoding: volume.errors, as: UTF8.self)
            let loudest = report.split(separator: "\n").first { $0.contains("max_volume:") }
                .flatMap { Double($0.split(separator: ":").last?.replacingOccurrences(of: "dB", with: "").trimmingCharacters(in: .whitespaces) ?? "") }
            print("recording audio: max volume \(loudest.map { "\($0) dB" } ?? "?")")
            #expect((loudest ?? -100) > -30, "the audio is silent: \(report.suffix(400))")
            #expect(pictures[0] != pictures[2] || pictures[1] != pictures[3], "the picture does not move: \(pictures)")

            // Ending the meeting stops a recording; the producer has its one video already, so
            // this one is refused by the quota: stopped, with why, and no file left behind.
            _ = try await meeting.startRecording()
            try await recorder.wait("the second recording started", timeout: .seconds(60)) {
                $0.calls.filter { $0 == "recording:RECORDING_STARTED" }.count == 2
            }
            try await Task.sleep(for: .seconds(3))
            try await meeting.end()
            try await eventually("the second recording stopped", timeout: .seconds(120)) {
                let last = try await server.server.core.storage.load(RecordingRecord.self, id: "meeting:stage")?.info
                return last?.status == .RECORDING_STOPPED && last?.requestedAt != info.requestedAt
            }
            let last = try #require(try await server.server.core.storage.load(RecordingRecord.self, id: "meeting:stage")?.info)
            #expect(last.videoId == nil && last.reason?.hasPrefix("rateLimited") == true, "\(last)")
            let root = server.server.core.livestreams.recordingsRoot
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).isEmpty, "recordings left files")
            #expect(try await feed.videos(owner: "producer").items.map(\.id) == [videoId])
        }
    }

    @Test("a live event is recorded (the backend starts and stops one over REST, for the event's creator, and the event's own livestream goes on; the host starts another); refused before it is ongoing and to a participant who is no host, and to the backend for a meeting without naming the video's owner; ending the event stops the recording, which becomes the host's ready video as long as the recorded time within a second")
    func liveEventRecording() async throws {
        guard let programs = MediaPrograms.find(for: "the recording tests", browsers: false), let tools = LivestreamTests.tools() else { return }
        try await withMediaServer(programs, { config in
            config.ffmpegPath = tools.ffmpeg
            config.ffprobePath = tools.ffprobe
        }) { server in
            let client = try await server.client("hostuser")
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = ["hostuser"]
            let live = try await client.createLiveEvent(config: params)
            try await live.enterAsHost()
            try await live.setEventReady()
            #expect(await refusal { try await live.startRecording() } == .actionNotAllowedInCurrentState)
            try await live.startEvent()
            let viewer = try await server.client("pat")
            let watched = try await viewer.getLiveEvent(id: live.liveEventId)
            try await watched.enter()
            #expect(await refusal { try await watched.startRecording() } == .actionNotAllowedForParticipant)

            // The app's backend: a meeting's recording must name its video's owner; a live
            // event's is its creator's when none is named.
            let unnamed = try await server.rest("POST", "/v1/meetings/nomeeting/recording/start", body: ["owner": "$backend"])
            #expect(unnamed.0 == 400 && unnamed.1["error"]?["name"]?.stringValue == "invalidParameterValue")
            let started = try await server.rest("POST", "/v1/live-events/\(live.liveEventId)/recording/start")
            #expect(started.0 == 200 && started.1["status"]?.stringValue == "RECORDING_STARTING" && started.1["owner"]?.stringValue == "hostuser", "\(started)")
            #expect(try await live.startRecording().owner == "hostuser", "the host starting it answers the one that runs")
            try await eventually("the recording started", timeout: .seconds(60)) { live.recording?.status == .RECORDING_STARTED }
            try await Task.sleep(for: .seconds(3))
            let stopped = try await server.rest("POST", "/v1/live-events/\(live.liveEventId)/recording/stop")
            #expect(stopped.1["status"]?.stringValue == "RECORDING_STOPPING", "\(stopped)")
            try await eventually("the backend's recording stopped", timeout: .seconds(120)) { live.recording?.status == .RECORDING_STOPPED }
            let first = try #require(live.recording?.videoId, "no video: \(String(describing: live.recording))")
            #expect(live.livestream?.status == .LIVESTREAM_STARTED, "the event's own livestream goes on after the recording")

            // The host records again, and the event ends while it records.
            try await live.startRecording()
            try await eventually("the second recording started", timeout: .seconds(60)) {
                live.recording?.status == .RECORDING_STARTED && live.recording?.requestedAt != nil && live.recording?.videoId == nil
            }
            let began = ContinuousClock.now
            // Checked while it records: once the event ends, whether a participant also hears
            // the recording stopping (stored just after the end, on the same stream) depends
            // on whether both frames arrive before its SDK has left.
            try await eventually("a participant inside saw it start", timeout: .seconds(20)) {
                watched.recording?.status == .RECORDING_STARTED && watched.recording?.videoId == nil
            }
            try await Task.sleep(for: .seconds(4))
            try await live.endEvent()
            let recorded = ContinuousClock.now - began
            // The event's stream ends with it: its state is read again.
            try await eventually("the recording stopped", timeout: .seconds(120)) {
                try await client.getLiveEvent(id: live.liveEventId).recording?.status == .RECORDING_STOPPED
            }
            let info = try #require(try await client.getLiveEvent(id: live.liveEventId).recording)
            #expect(info.reason == "ended")
            let videoId = try #require(info.videoId, "no video: \(info)")
            let feed = try await VideoTests().session(server, "hostuser", scopes: [VideoScope.read])
            try await eventually("the video is processed", timeout: .seconds(180)) { try await feed.video(id: videoId).status == .ready }
            let video = try await feed.video(id: videoId)
            let seconds = Double(recorded.components.seconds) + Double(recorded.components.attoseconds) / 1e18
            #expect(video.owner == "hostuser" && video.width == 640 && video.height == 360)
            #expect(abs((video.duration ?? 0) - seconds) <= 1, "a video of \(video.duration ?? 0) s for \(seconds) s recorded")
            #expect(try await viewer.getLiveEvent(id: live.liveEventId).recording?.videoId == videoId)
            let owned = try await feed.videos(owner: "hostuser").items.map(\.id)
            #expect(first != videoId && owned.sorted() == [first, videoId].sorted())
        }
    }
}

/// How a recording's segments are read and cut, without media.
@Suite("Recording windows")
struct RecordingWindowTests {
    @Test("the playlist's segments with their lengths; the cut starts where recording began in the first kept segment and lasts the recorded time, or what was kept")
    func window() throws {
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.000000,\nseg000007.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:1.500000,\nseg000008.ts?x=1\n#EXTINF:2.0,\n../secret.ts\n"
        let parsed = RecordingMaker.segments(inPlaylist: playlist)
        #expect(parsed.map(\.name) == ["seg000007.ts", "seg000008.ts"], "names that are no segment of ffmpeg's are left out")
        #expect(parsed.map(\.duration) == [2, 1.5])

        let t0 = Date(timeIntervalSince1970: 1_000)
        let kept = [RecordedSegment(name: "seg000007.ts", duration: 2, listedAt: t0.addingTimeInterval(1.5)),
                    RecordedSegment(name: "seg000008.ts", duration: 2, listedAt: t0.addingTimeInterval(3.5)),
                    RecordedSegment(name: "seg000009.ts", duration: 2, listedAt: t0.addingTimeInterval(5.5))]
        // The first segment began at t0 - 0.5: recording from t0 skips half a second of it.
        let cut = try #require(RecordingMaker.window(kept, startedAt: t0, stoppedAt: t0.addingTimeInterval(4)))
        #expect(abs(cut.offset - 0.5) < 1e-9 && abs(cut.length - 4) < 1e-9)
        // Stopped later than what was kept: as much as there is.
        let short = try #require(RecordingMaker.window(kept, startedAt: t0, stoppedAt: t0.addingTimeInterval(60)))
        #expect(abs(short.length - 5.5) < 1e-9)
        // A first segment that began after the start is not cut into.
        let late = try #require(RecordingMaker.window(kept, startedAt: t0.addingTimeInterval(-3), stoppedAt: t0.addingTimeInterval(2)))
        #expect(late.offset == 0 && abs(late.length - 5) < 1e-9)
        #expect(RecordingMaker.window([], startedAt: t0, stoppedAt: t0.addingTimeInterval(5)) == nil)
        #expect(RecordingMaker.window(kept, startedAt: t0, stoppedAt: t0.addingTimeInterval(0.2)) == nil, "nothing worth a video")
        #expect(RecordingMaker.list(Array(kept.prefix(1))) == "file 'seg000007.ts'\nduration 2.0\n")
    }
}
