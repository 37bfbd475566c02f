import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Video feed: uploads, processing with ffmpeg, notifications, playlists", .wholeRun)
struct VideoTests {
    static let allScopes = [VideoScope.read, VideoScope.create, VideoScope.edit, VideoScope.delete]

    /// Runs `body` with a server that processes with the test's ffmpeg (and whatever else
    /// `configure` sets); nothing without it.
    func withVideoServer(_ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
                         _ body: (TestServer, (ffmpeg: String, ffprobe: String)) async throws -> Void) async throws {
        guard let tools = TestEnvironment.ffmpeg(for: "the video tests") else { return }
        try await withServer({ config in
            config.ffmpegPath = tools.ffmpeg
            config.ffprobePath = tools.ffprobe
            configure(&config)
        }) { server in try await body(server, tools) }
    }

    /// A REST request with `token` and a raw body; the status and the JSON answer.
    static func send(_ server: TestServer, token: String, _ method: String, _ path: String, _ body: Data = Data(),
                     _ headers: [String: String] = [:]) async throws -> (Int, RawJSON) {
        var request = URLRequest(url: URL(string: path, relativeTo: server.url)!)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, status) = try await HTTPTransport.data(for: request)
        return (status, (try? RawJSON(json: data)) ?? .nil)
    }

    /// A short video made by ffmpeg's test source.
    static func makeVideo(_ ffmpeg: String, seconds: Int = 2, size: String = "320x240") async throws -> URL {
        let url = TemporaryPaths.make(".mp4")
        let made = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=\(seconds):size=\(size):rate=25",
                                                       "-c:v", "mpeg4", "-q:v", "5", url.path])
        #expect(made.exit.succeeded, "\(String(decoding: made.errors, as: UTF8.self))")
        return url
    }

    func session(_ server: TestServer, _ user: String, scopes: [String] = VideoTests.allScopes, url: URL? = nil) async throws -> VideoSession {
        var config = ClientConfiguration(serverURL: url ?? server.url)
        config.initialReconnectDelay = .milliseconds(50)
        let session = VideoSession(client: server.track(GreenroomClient(configuration: config)), notificationCenter: NotificationCenter())
        try await session.start(token: try await server.token(user, grants: scopes))
        return session
    }

    @Test("an upload: others get created, then updated with duration, size and thumbnail; the file plays back byte-exact through Range requests")
    func uploadAndProcess() async throws {
        try await withVideoServer { server, tools in
            let file = try await Self.makeVideo(tools.ffmpeg)
            let original = try Data(contentsOf: file)
            let uploader = try await session(server, "alice")
            let watcher = try await session(server, "bob", scopes: [VideoScope.read])
            #expect(watcher.sessionState == .connected)
            // Notifications through NotificationCenter, with the seed's userInfo keys, on the
            // main queue (an observer off it would be marked; on Linux the main queue need not
            // run on the main thread, so the queue is what is checked).
            let mainKey = DispatchSpecificKey<Bool>()
            DispatchQueue.main.setSpecific(key: mainKey, value: true)
            let onMain: @Sendable () -> Bool = { DispatchQueue.getSpecific(key: mainKey) == true }
            let seen = Locked<[String]>([])
            let observers = [
                watcher.notificationCenter.addObserver(forName: .GRVideoCreated, object: nil, queue: nil) { note in
                    let video = note.userInfo?["video"] as? GRVideo  // the seed's VKVideo, prefix replaced
                    seen.withLock { $0.append("created:\(video?.status.rawValue ?? "?")\(onMain() ? "" : ":off-main")") }
                },
                watcher.notificationCenter.addObserver(forName: .GRVideoUpdated, object: nil, queue: nil) { note in
                    let changes = note.userInfo?["changes"] as? [String: RawJSON] ?? [:]
                    let id = note.userInfo?["videoID"] as? String ?? "?"
                    seen.withLock { $0.append("updated:\(id.prefix(1)):\(changes.keys.sorted().joined(separator: ","))\(onMain() ? "" : ":off-main")") }
                },
            ]
            defer { for observer in observers { watcher.notificationCenter.removeObserver(observer) } }
            let upload = uploader.upload(fileURL: file, title: "Test pattern", tags: ["demo"], chunkSize: 16 * 1024)
            var fractions: [Double] = []
            for await fraction in upload.progress { fractions.append(fraction) }
            let uploaded = try await upload.result()
            #expect(uploaded.status == .processing && uploaded.size == Int64(original.count))
            #expect(fractions.last == 1 && fractions == fractions.sorted())
            try await eventually("processing finished", timeout: .seconds(60)) { try await watcher.video(id: uploaded.id).status == .ready }
            let ready = try await watcher.video(id: uploaded.id)
            #expect(ready.width == 320 && ready.height == 240 && ready.codec == "mpeg4")
            #expect(abs((ready.duration ?? 0) - 2) < 0.2)
            #expect(ready.thumbnailURL == "/v1/videos/\(uploaded.id)/thumbnail")
            try await eventually("bob saw created and both updates") { seen.value.count == 3 }
            #expect(seen.value == ["created:uploading", "updated:v:playbackURL,size,status",
                                   "updated:v:codec,duration,height,hlsURL,renditions,status,thumbnailURL,width"])

            // Byte-exact playback, whole and in ranges.
            let whole = try await watcher.download(videoID: uploaded.id)
            #expect(whole.status == 200 && whole.data == original)
            var joined = Data()
            var start = 0
            while start < original.count {
                let end = min(start + 9_999, original.count - 1)
                let part = try await watcher.download(videoID: uploaded.id, range: "bytes=\(start)-\(end)")
                #expect(part.status == 206)
                joined.append(part.data)
                start = end + 1
            }
            #expect(joined == original)
            let tail = try await watcher.download(videoID: uploaded.id, range: "bytes=-100")
            #expect(tail.data == original.suffix(100))
            let thumbnail = try await watcher.download(videoID: uploaded.id, thumbnail: true)
            #expect(thumbnail.data.starts(with: [0xFF, 0xD8]))
            // Without videos.read, nothing is served; without videos.create, nothing is uploaded.
            let outsider = try await session(server, "carol", scopes: [VideoScope.create])
            #expect(await refusal { _ = try await outsider.download(videoID: uploaded.id) } == .permissionDenied)
            #expect(await refusal { _ = try await watcher.upload(fileURL: file).result() } == .permissionDenied)
            try? FileManager.default.removeItem(at: file)
        }
    }

    @Test("an upload cut in the middle resumes, and the stored file is byte-identical")
    func resumedUpload() async throws {
        try await withVideoServer { server, tools in
            let file = try await Self.makeVideo(tools.ffmpeg, seconds: 4, size: "640x480")
            let original = try Data(contentsOf: file)
            #expect(original.count > 100_000)
            let proxy = try CuttingProxy(target: server.port, cutAfter: original.count / 2)
            let uploader = try await session(server, "alice", url: proxy.url)
            let upload = uploader.upload(fileURL: file, title: "Cut", chunkSize: 64 * 1024)
            let video = try await upload.result()
            #expect(proxy.cuts == 1)
            #expect(video.size == Int64(original.count))
            let stored = try Data(contentsOf: URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("videos/\(video.id)/original"))
            #expect(stored == original)
            try await eventually("the resumed file processes", timeout: .seconds(60)) { try await uploader.video(id: video.id).status == .ready }
            try? FileManager.default.removeItem(at: file)
        }
    }

    @Test("a text file named .mp4 ends failed with a reason, and the server keeps serving; a non-owner may not edit or delete; the owner's delete reaches everyone and removes the files")
    func failuresAndOwnership() async throws {
        try await withVideoServer { server, tools in
            let text = TemporaryPaths.make(".mp4")
            try Data("this is not a video\n".utf8).write(to: text)
            let alice = try await session(server, "alice")
            let bob = try await session(server, "bob")
            let bad = try await alice.upload(fileURL: text, title: "Not a video").result()
            try await eventually("processing failed", timeout: .seconds(60)) { try await alice.video(id: bad.id).status == .failed }
            let failed = try await alice.video(id: bad.id)
            #expect(failed.failureReason?.contains("not a video") == true, "\(failed.failureReason ?? "")")

            let file = try await Self.makeVideo(tools.ffmpeg)
            let good = try await alice.upload(fileURL: file, title: "Mine").result()
            try await eventually("the next one is ready", timeout: .seconds(60)) { try await alice.video(id: good.id).status == .ready }
            #expect(await refusal { try await bob.updateVideo(id: good.id, title: "Bob's") } == .permissionDenied)
            #expect(await refusal { try await bob.deleteVideo(id: good.id) } == .permissionDenied)
            let edited = try await alice.updateVideo(id: good.id, title: "Renamed", tags: ["a", "b"])
            #expect(edited.title == "Renamed" && edited.tags == ["a", "b"])
            #expect(try await bob.videos(tag: "a").items.map(\.id) == [good.id])

            let bobEvents = bob.events
            try await alice.deleteVideo(id: good.id)
            let gone = try await withTimeout(.seconds(20), "bob hears of the delete") { () -> String? in
                for await event in bobEvents { if case .deleted(let id) = event { return id } }
                return nil
            }
            #expect(gone == good.id)
            #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("videos/\(good.id)").path))
            #expect(await refusal { _ = try await bob.video(id: good.id) } == .notFound)
            try? FileManager.default.removeItem(at: text)
            try? FileManager.default.removeItem(at: file)
        }
    }

    @Test("a playlist kept current by notifications while another user uploads and deletes")
    func playlist() async throws {
        try await withVideoServer { server, tools in
            let file = try await Self.makeVideo(tools.ffmpeg, seconds: 1)
            let alice = try await session(server, "alice")
            let bob = try await session(server, "bob")
            var ids: [String] = []
            for index in 1...3 { ids.append(try await alice.upload(fileURL: file, title: "v\(index)").result().id) }
            for id in ids { try await eventually("ready", timeout: .seconds(60)) { try await alice.video(id: id).status == .ready } }

            let playlist = VideoPlaylist(session: bob, status: .ready, pageSize: 2)
            try await playlist.loadNextVideos()
            #expect(playlist.count == 2 && playlist.totalCount == 3 && playlist.hasMore)
            #expect(playlist.videoAt(0)?.id == ids[2] && playlist.videoAt(1)?.id == ids[1])
            try await playlist.loadNextVideos()
            #expect(playlist.videos.map(\.id) == ids.reversed() && !playlist.hasMore)

            let fresh = try await alice.upload(fileURL: file, title: "v4").result()
            try await eventually("the new video joins the playlist once ready", timeout: .seconds(60)) { playlist.videoAt(0)?.id == fresh.id }
            #expect(playlist.count == 4 && playlist.totalCount == 4 && playlist.videoAt(0)?.status == .ready)
            try await alice.updateVideo(id: ids[0], title: "renamed")
            try await eventually("the edit shows") { playlist.videos.last?.title == "renamed" }
            try await alice.deleteVideo(id: ids[1])
            try await eventually("the deleted video leaves") { !playlist.videos.contains { $0.id == ids[1] } }
            #expect(playlist.count == 3 && playlist.totalCount == 3)
            #expect(playlist.videos.map(\.id) == [fresh.id, ids[2], ids[0]])
            try? FileManager.default.removeItem(at: file)
        }
    }

    @Test("the size limit; a server without ffmpeg marks processing unavailable; the feed by owner and oldest first")
    func limitsToolsAndFilters() async throws {
        guard let tools = TestEnvironment.ffmpeg(for: "the video tests") else { return }
        let file = try await Self.makeVideo(tools.ffmpeg, seconds: 1)
        let bytes = try Data(contentsOf: file).count
        try await withServer({ config in
            config.ffprobePath = "/nonexistent/ffprobe"
            config.ffmpegPath = "/nonexistent/ffmpeg"
            config.videoMaxBytes = Int64(bytes)
        }) { server in
            let alice = try await session(server, "alice")
            let bob = try await session(server, "bob")
            let video = try await alice.upload(fileURL: file, title: "first").result()
            try await eventually("processing gave up") { try await alice.video(id: video.id).status == .failed }
            #expect(try await alice.video(id: video.id).failureReason?.contains("processing is unavailable") == true)
            // Over the limit: refused when the size is declared, and when the bytes exceed it.
            let big = TemporaryPaths.make(".mp4")
            try (try Data(contentsOf: file) + Data(count: 10)).write(to: big)
            #expect(await refusal { _ = try await alice.upload(fileURL: big).result() } == .payloadTooLarge)
            let token = try await server.token("alice", grants: Self.allScopes)
            func send(_ method: String, _ path: String, _ body: Data, _ headers: [String: String] = [:]) async throws -> (Int, RawJSON) {
                try await Self.send(server, token: token, method, path, body, headers)
            }
            let (created, ticket) = try await send("POST", "/v1/videos", Data(#"{"title":"sneaky"}"#.utf8), ["Content-Type": "application/json"])
            #expect(created == 201)
            let uploadId = try #require(ticket["uploadId"]?.stringValue)
            let (tooBig, tooBigBody) = try await send("PATCH", "/v1/uploads/\(uploadId)", try Data(contentsOf: big), ["Upload-Offset": "0"])
            #expect(tooBigBody["error"]?["name"]?.stringValue == "payloadTooLarge", "\(tooBig) \(tooBigBody)")
            let (wrongOffset, wrongBody) = try await send("PATCH", "/v1/uploads/\(uploadId)", Data(count: 5), ["Upload-Offset": "999"])
            #expect(wrongOffset == 409 && wrongBody["error"]?["name"]?.stringValue == "alreadyExists", "\(wrongOffset) \(wrongBody)")
            // An offset that is no byte count at all is a bad parameter, not a conflict.
            for offset in ["-1", "9223372036854775808", "ten"] {
                let (status, body) = try await send("PATCH", "/v1/uploads/\(uploadId)", Data(count: 5), ["Upload-Offset": offset])
                #expect(status == 400 && body["error"]?["name"]?.stringValue == "invalidParameterValue", "\(offset): \(status) \(body)")
            }
            let second = try await bob.upload(fileURL: file, title: "bob's").result()
            let third = try await alice.upload(fileURL: file, title: "third").result()
            let mine = try await bob.videos(owner: "alice", oldestFirst: true)
            #expect(mine.items.map(\.title) == ["first", "sneaky", "third"] && mine.totalCount == 3)
            #expect(try await bob.videos(owner: "bob").items.map(\.id) == [second.id])
            #expect(try await bob.videos(limit: 2).items.map(\.id).first == third.id)
            try? FileManager.default.removeItem(at: big)
        }
        try? FileManager.default.removeItem(at: file)
    }
}
