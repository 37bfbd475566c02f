import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

extension VideoTests {
    /// Writes `text` to a temporary file named `.mp4`, as an uploader may name anything.
    static func textFile(_ text: String) throws -> URL {
        let url = TemporaryPaths.make(".mp4")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// Waits until processing is over; returns the video.
    func processed(_ session: VideoSession, _ id: String, timeout: Duration = .seconds(120)) async throws -> Video {
        try await eventually("video \(id) is processed", timeout: timeout) {
            let status = try await session.video(id: id).status
            return status == .ready || status == .failed
        }
        return try await session.video(id: id)
    }

    @Test("an uploaded HLS playlist is not followed: one naming a local HTTP server makes no request to it, one naming another user's segment files copies nothing; both end failed")
    func playlistsAreNotFollowed() async throws {
        try await withVideoServer { server, tools in
            let alice = try await session(server, "alice")
            let mallory = try await session(server, "mallory")
            let file = try await Self.makeVideo(tools.ffmpeg)
            defer { try? FileManager.default.removeItem(at: file) }
            let victim = try await alice.upload(fileURL: file, title: "private").result()
            #expect(try await processed(alice, victim.id).status == .ready)
            let folder = URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("videos/\(victim.id)")
            let segments = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { ($0 as? URL)?.path }.filter { $0.hasSuffix(".ts") }.sorted() ?? []
            let segment = try #require(segments.first, "no segment under \(folder.path)")

            let listener = try StubListener(.hangUp)
            defer { listener.stop() }
            for (name, target) in [("remote", "http://127.0.0.1:\(listener.port)/seg00000.ts"), ("local", segment)] {
                let playlist = try Self.textFile("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXTINF:4.0,\n\(target)\n#EXT-X-ENDLIST\n")
                defer { try? FileManager.default.removeItem(at: playlist) }
                let uploaded = try await mallory.upload(fileURL: playlist, title: name).result()
                let video = try await processed(mallory, uploaded.id)
                #expect(video.status == .failed, "\(name): \(video.status) \(video.failureReason ?? "")")
            }
            #expect(listener.accepted == 0)
        }
    }

    @Test("a processing run past its time limit is stopped and the video ends failed saying so")
    func processingTimeLimit() async throws {
        try await withVideoServer({ $0.videoProcessingLimit = 1 }) { server, tools in
            let file = try await Self.makeVideo(tools.ffmpeg, seconds: 20, size: "1280x720")
            defer { try? FileManager.default.removeItem(at: file) }
            let alice = try await session(server, "alice")
            let uploaded = try await alice.upload(fileURL: file, title: "long").result()
            let video = try await processed(alice, uploaded.id)
            #expect(video.status == .failed && video.failureReason?.contains("longer than its limit") == true, "\(video.failureReason ?? "")")
        }
    }

    @Test("the processing queue is bounded: past it a completed upload is refused with rateLimited, and taken again once the queue drains")
    func processingQueueBounded() async throws {
        try await withVideoServer({ $0.videoWorkers = 1; $0.videoQueueLimit = 1 }) { server, tools in
            let long = try await Self.makeVideo(tools.ffmpeg, seconds: 20, size: "1280x720")
            let short = try await Self.makeVideo(tools.ffmpeg)
            defer { try? FileManager.default.removeItem(at: long); try? FileManager.default.removeItem(at: short) }
            let alice = try await session(server, "alice")
            let first = try await alice.upload(fileURL: long, title: "long").result()
            // While the one worker encodes the long video, one more may wait and no other.
            var refused = 0
            for index in 0..<2 {
                if await refusal({ _ = try await alice.upload(fileURL: short, title: "short \(index)").result() }) == .rateLimited {
                    refused += 1
                }
            }
            #expect(refused >= 1)
            #expect(try await processed(alice, first.id).status == .ready)
            try await eventually("the queue drained") {
                try await alice.videos(owner: "alice").items.allSatisfy { $0.status != .processing }
            }
            let later = try await alice.upload(fileURL: short, title: "later").result()
            #expect(try await processed(alice, later.id).status == .ready)
        }
    }

    @Test("a user's videos are capped; two requests appending to one upload at once: the second is refused while the first writes, so the file stays within its limit")
    func uploadQuotas() async throws {
        try await withServer({ $0.videoMaxPerUser = 2; $0.videoMaxBytes = 1_000 }) { server in
            let token = try await server.token("alice", grants: Self.allScopes)
            func send(_ method: String, _ path: String, _ body: Data = Data(), _ headers: [String: String] = [:]) async throws -> (Int, RawJSON) {
                try await Self.send(server, token: token, method, path, body, headers)
            }
            let json = ["Content-Type": "application/json"]
            let (first, ticket) = try await send("POST", "/v1/videos", Data(#"{"title":"one"}"#.utf8), json)
            #expect(first == 201)
            #expect(try await send("POST", "/v1/videos", Data(#"{"title":"two"}"#.utf8), json).0 == 201)
            let (third, refused) = try await send("POST", "/v1/videos", Data(#"{"title":"three"}"#.utf8), json)
            #expect(third == 429 && refused["error"]?["name"]?.stringValue == "rateLimited", "\(third) \(refused)")

            let uploadId = try #require(ticket["uploadId"]?.stringValue)
            // The first request sends its head and holds back its 800 bytes. A probe that
            // reaches the server just as it arrives refuses it instead (it holds the upload
            // for that moment): then it is sent again.
            var slow = try RawSocket(port: server.port)
            func sendSlowHead() throws {
                try slow.write(Array(("PATCH /v1/uploads/\(uploadId) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                    + "Upload-Offset: 0\r\nContent-Type: application/octet-stream\r\nContent-Length: 800\r\n\r\n").utf8))
            }
            try sendSlowHead()
            try await eventually("the second request is refused while the first writes") {
                let early = try await slow.readAnswer(timeout: .milliseconds(1))
                if !early.isEmpty {
                    #expect(early.contains("another request"), "\(early)")
                    slow = try RawSocket(port: server.port)
                    try sendSlowHead()
                    return false
                }
                // An empty append at offset 0 passes the offset check until bytes arrive.
                let (status, body) = try await send("PATCH", "/v1/uploads/\(uploadId)", Data(), ["Upload-Offset": "0"])
                #expect(status == 409 || status == 200, "\(status) \(body)")
                return status == 409 && body["error"]?["message"]?.stringValue?.contains("another request") == true
            }
            try slow.write([UInt8](repeating: 7, count: 800))
            let answer = try await slow.readAnswer(timeout: .seconds(10))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            let (_, offset) = try await send("GET", "/v1/uploads/\(uploadId)")
            #expect(offset["offset"]?.numberValue == 800)
        }
    }
}

extension VideoTests {
    @Test("a user's videos are capped in bytes: a declared size past what is left is refused, an undeclared upload may take only what is left, a deleted video gives its bytes back")
    func uploadByteQuota() async throws {
        try await withServer({ $0.videoBytesPerUser = 1_000; $0.videoMaxBytes = 800 }) { server in
            let token = try await server.token("alice", grants: Self.allScopes)
            func send(_ method: String, _ path: String, _ body: Data = Data(), _ headers: [String: String] = [:]) async throws -> (Int, RawJSON) {
                try await Self.send(server, token: token, method, path, body, headers)
            }
            let json = ["Content-Type": "application/json"]
            let (first, ticket) = try await send("POST", "/v1/videos", Data(#"{"title":"one","size":600}"#.utf8), json)
            #expect(first == 201)
            let (tooBig, refused) = try await send("POST", "/v1/videos", Data(#"{"title":"two","size":500}"#.utf8), json)
            #expect(tooBig == 429 && refused["error"]?["name"]?.stringValue == "rateLimited", "\(tooBig) \(refused)")
            // Undeclared: 400 bytes are left for it.
            let (second, undeclared) = try await send("POST", "/v1/videos", Data(#"{"title":"three"}"#.utf8), json)
            #expect(second == 201)
            let uploadId = try #require(undeclared["uploadId"]?.stringValue)
            let (over, overBody) = try await send("PATCH", "/v1/uploads/\(uploadId)", Data(repeating: 1, count: 500), ["Upload-Offset": "0"])
            #expect(over == 413 && overBody["error"]?["name"]?.stringValue == "payloadTooLarge", "\(over) \(overBody)")
            #expect(try await send("PATCH", "/v1/uploads/\(uploadId)", Data(repeating: 1, count: 400), ["Upload-Offset": "0"]).0 == 200)
            // Nothing is left now; deleting the first video gives its 600 bytes back.
            #expect(try await send("POST", "/v1/videos", Data(#"{"title":"four"}"#.utf8), json).0 == 429)
            let firstId = try #require(ticket["video"]?["id"]?.stringValue)
            #expect(try await send("DELETE", "/v1/videos/\(firstId)").0 == 204)
            #expect(try await send("POST", "/v1/videos", Data(#"{"title":"five","size":600}"#.utf8), json).0 == 201)
        }
    }

    @Test("token.resource gives a token for one video's or livestream's files only, within its ttl range; a revoked user's is refused")
    func resourceTokens() async throws {
        try await withServer { server in
            let client = try await server.client("rita", grants: Self.allScopes)
            let issued = try await client.send(ResourceTokenOperation.issue, args: ResourceTokenArgs(scope: "/v1/videos/vabc/", ttl: 120))
            #expect(issued.scope == "/v1/videos/vabc/" && issued.expiresAt > Date() && issued.expiresAt < Date().addingTimeInterval(200))
            // Good under its scope (the video does not exist: 404, not 401), refused elsewhere.
            #expect(try await server.rest("GET", "/v1/videos/vabc/file", key: issued.token).0 == 404)
            #expect(try await server.rest("GET", "/v1/videos/vother/file", key: issued.token).0 == 401)
            #expect(try await server.rest("GET", "/v1/connect", key: issued.token).0 == 401)
            for scope in ["/v1/users/", "/v1/videos/", "/v1/videos/a/b/", "/metrics", "/v1/videos/vabc"] {
                #expect(await refusal { _ = try await client.send(ResourceTokenOperation.issue, args: ResourceTokenArgs(scope: scope)) } == .invalidParameterValue, "\(scope)")
            }
            #expect(await refusal { _ = try await client.send(ResourceTokenOperation.issue, args: ResourceTokenArgs(scope: "/v1/videos/vabc/", ttl: 5)) } == .invalidParameterValue)
            _ = try await client.send(ResourceTokenOperation.issue, args: ResourceTokenArgs(scope: "/v1/livestreams/meeting:stage/"))
            #expect(try await server.rest("POST", "/v1/users/rita/revoke-tokens").0 == 200)
            #expect(try await server.rest("GET", "/v1/videos/vabc/file", key: issued.token).0 == 401)
        }
    }

    @Test("a playlist asked for with ?token= names its files with a short-lived token for that video alone, never the session's")
    func playlistsCarryResourceTokens() async throws {
        try await withVideoServer { server, tools in
            let file = try await Self.makeVideo(tools.ffmpeg)
            defer { try? FileManager.default.removeItem(at: file) }
            let alice = try await session(server, "alice")
            let one = try await alice.upload(fileURL: file, title: "one").result()
            let two = try await alice.upload(fileURL: file, title: "two").result()
            for id in [one.id, two.id] { #expect(try await processed(alice, id).status == .ready) }
            let session = try await server.token("bob", ttl: 86_400, grants: [VideoScope.read])
            let (status, master) = try await server.rest("GET", "/v1/videos/\(one.id)/index.m3u8?token=\(session)", key: "")
            #expect(status == 200)
            let text = master.stringValue ?? ""
            #expect(!text.contains(session))
            let uri = try #require(text.split(separator: "\n").first { !$0.hasPrefix("#") && $0.contains("?token=") }.map(String.init), "\(text)")
            let scoped = try #require(uri.split(separator: "=").last.map(String.init)?.removingPercentEncoding)
            // Good for this video's files, through every level of the playlist.
            let (rendition, media) = try await server.rest("GET", "/v1/videos/\(one.id)/\(uri)", key: "")
            #expect(rendition == 200, "\(media)")
            let segment = try #require(media.stringValue?.split(separator: "\n").first { !$0.hasPrefix("#") && !$0.isEmpty }.map(String.init))
            let folder = uri.split(separator: "?").first.map { String($0.split(separator: "/").dropLast().joined(separator: "/")) } ?? ""
            #expect(try await server.rest("GET", "/v1/videos/\(one.id)/\(folder)/\(segment)", key: "").0 == 200)
            // Not for another video, nor the WebSocket, nor the user's other calls.
            #expect(try await server.rest("GET", "/v1/videos/\(two.id)/index.m3u8", key: scoped).0 == 401)
            #expect(try await server.rest("GET", "/v1/connect", key: scoped).0 == 401)
            #expect(try await server.rest("GET", "/v1/videos", key: scoped).0 == 401)
            #expect(try await server.rest("GET", "/v1/videos/\(one.id)/index.m3u8", key: scoped).0 == 200)
        }
    }
}
