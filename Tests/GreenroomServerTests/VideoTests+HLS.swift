import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension VideoTests {
    /// A short video with sound in a container and codec of its own, made by ffmpeg.
    static func makeVideo(_ ffmpeg: String, name: String, size: String, codec: [String], audio: [String]) async throws -> URL {
        let url = TemporaryPaths.make("-\(name)")
        let result = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=duration=3:size=\(size):rate=25",
                                                       "-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-shortest"] + codec + audio + [url.path])
        #expect(result.exit.succeeded, "making \(name): \(String(decoding: result.errors, as: UTF8.self))")
        return url
    }

    @Test("uploads in MP4/H.264, WebM/VP9 and MOV/HEVC are encoded to H.264/AAC HLS renditions never above the source; ffprobe reads each master playlist and ffmpeg decodes every rendition, with the token in the URL as a player sends it; readers without videos.read are refused")
    func hlsRenditions() async throws {
        try await withVideoServer { server, tools in
            let uploads = [
                ("h264.mp4", try await Self.makeVideo(tools.ffmpeg, name: "h264.mp4", size: "1280x720",
                                                     codec: ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], audio: ["-c:a", "aac"]),
                 [("360p", 640, 360), ("720p", 1280, 720)]),
                ("vp9.webm", try await Self.makeVideo(tools.ffmpeg, name: "vp9.webm", size: "360x640",
                                                     codec: ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "500k"], audio: ["-c:a", "libopus"]),
                 [("360p", 360, 640)]),
                ("hevc.mov", try await Self.makeVideo(tools.ffmpeg, name: "hevc.mov", size: "320x240",
                                                     codec: ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "log-level=error"], audio: ["-c:a", "aac"]),
                 [("240p", 320, 240)]),
            ]
            let alice = try await session(server, "alice")
            let token = try await server.token("bob", grants: [VideoScope.read])
            for (name, file, expected) in uploads {
                defer { try? FileManager.default.removeItem(at: file) }
                let uploaded = try await alice.upload(fileURL: file, title: name).result()
                try await eventually("\(name) is encoded", timeout: .seconds(120)) {
                    let video = try await alice.video(id: uploaded.id)
                    #expect(video.status != .failed, "\(name): \(video.failureReason ?? "")")
                    return video.status == .ready || video.status == .failed
                }
                let video = try await alice.video(id: uploaded.id)
                try #require(video.status == .ready)
                #expect(video.hlsURL == "/v1/videos/\(video.id)/index.m3u8")
                let renditions = try #require(video.renditions)
                #expect(renditions.map { "\($0.name) \($0.width)x\($0.height)" } == expected.map { "\($0.0) \($0.1)x\($0.2)" }, "\(name)")

                // As a player: the token in the URL, and the playlists name their files with it.
                let master = try #require(try await alice.playbackURL(for: video)).absoluteString
                // Its token is for this video's files alone, not the session's (which lists videos).
                let scoped = try #require(URLComponents(string: master)?.queryItems?.first { $0.name == "token" }?.value)
                #expect(try await server.rest("GET", "/v1/videos", key: scoped).0 == 401, "the video's token reads nothing else")
                let probe = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", master])
                #expect(probe.exit.succeeded, "\(name): \(String(decoding: probe.errors, as: UTF8.self))")
                let streams = try RawJSON(json: probe.output)["streams"]?.arrayValue ?? []
                let codecs = Set(streams.compactMap { $0["codec_name"]?.stringValue })
                #expect(codecs == ["h264", "aac"], "\(name): \(codecs)")
                for rendition in renditions {
                    let url = "\(server.url.absoluteString)\(rendition.playlistURL)?token=\(token)"
                    let decoded = try await ChildProcess.run(tools.ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                                          "-show_entries", "stream=nb_read_frames,width,height", "-print_format", "json", url])
                    #expect(decoded.exit.succeeded && decoded.errors.isEmpty, "\(name) \(rendition.name): \(String(decoding: decoded.errors, as: UTF8.self))")
                    let stream = try RawJSON(json: decoded.output)["streams"]?[0]
                    #expect(stream?["width"]?.numberValue == Double(rendition.width) && stream?["height"]?.numberValue == Double(rendition.height))
                    // Three seconds at 25 frames per second, all decoded.
                    #expect((stream?["nb_read_frames"]?.stringValue).flatMap(Int.init) == 75, "\(name) \(rendition.name): \(String(decoding: decoded.output, as: UTF8.self))")
                }
            }

            // Readers without videos.read, or without a token, get nothing of it.
            let video = try #require(try await alice.videos(owner: "alice").items.first { $0.renditions != nil })
            let segment = "/v1/videos/\(video.id)/hls/\(try #require(video.renditions?.first?.name))/seg00000.ts"
            let creator = try await server.token("carol", grants: [VideoScope.create])
            for path in [try #require(video.hlsURL), segment] {
                for (query, status) in [("?token=\(creator)", 403), ("", 401), ("?token=\(token)", 200)] {
                    let (_, answered) = try await HTTPTransport.data(for: URLRequest(url: URL(string: "\(server.url.absoluteString)\(path)\(query)")!))
                    #expect(answered == status, "\(path)\(query.prefix(7))")
                }
            }
            // Nothing of the folder but the encoder's files is served.
            for path in ["hls/../original", "hls/360p/../../original", "hls/x/index.m3u8"] {
                let (_, answered) = try await HTTPTransport.data(for: URLRequest(url: URL(string: "\(server.url.absoluteString)/v1/videos/\(video.id)/\(path)?token=\(token)")!))
                #expect(answered == 404 || answered == 400, "\(path): \(answered)")
            }
        }
    }
}
