import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The HLS renditions of an upload: H.264 (Main profile) and AAC in MPEG-TS segments, a
/// keyframe every two seconds, a master playlist naming each rendition's size, bandwidth and
/// codecs; what AVPlayer, Safari, hls.js and ffplay play, whatever was uploaded.
extension VideoService {
    /// A rung of the ladder: the picture's shorter side, the video bit rate and the H.264
    /// level that allows that size at up to 60 frames per second.
    package struct Rung: Sendable {
        let shortSide: Int
        let videoBitrate: Int
        let level: String
        /// `avc1.` + profile, constraints and level, as the master playlist's CODECS names it.
        let avc1: String

        var name: String { "\(shortSide)p" }
    }

    package static let ladder = [
        Rung(shortSide: 360, videoBitrate: 800_000, level: "3.1", avc1: "avc1.4D401F"),
        Rung(shortSide: 720, videoBitrate: 2_800_000, level: "3.2", avc1: "avc1.4D4020"),
    ]
    package static let audioBitrate = 128_000
    /// The largest side encoded (ffprobe's figures come from the file, which anyone may write).
    package static let largestSide = 8_192

    package func hlsFolder(_ id: String) -> URL { folder(id).appendingPathComponent("hls", isDirectory: true) }

    /// The rungs for a source: those not above its shorter side, or, when it is smaller than
    /// the first, one at its own size.
    package static func rungs(width: Int, height: Int) -> [Rung] {
        let shortSide = min(width, height) & ~1
        let fitting = ladder.filter { $0.shortSide <= shortSide }
        guard fitting.isEmpty else { return fitting }
        return [Rung(shortSide: shortSide, videoBitrate: 400_000, level: "3.1", avc1: "avc1.4D401F")]
    }

    /// The picture's size at `rung`, the aspect kept, both sides even.
    package static func size(width: Int, height: Int, at rung: Rung) -> (width: Int, height: Int) {
        let scaled = { (side: Int, other: Int) in max(2, (side * rung.shortSide / max(other, 1) + 1) & ~1) }
        return width >= height ? (scaled(width, height), rung.shortSide) : (rung.shortSide, scaled(height, width))
    }

    /// Encodes the upload's renditions (into a scratch folder that replaces `hls/` when all
    /// are done) and writes the master playlist; returns the renditions, smallest first.
    package func encodeRenditions(_ id: String, ffmpeg: String, width: Int, height: Int, hasAudio: Bool) async throws -> [VideoRendition] {
        guard (2...Self.largestSide).contains(width), (2...Self.largestSide).contains(height) else {
            throw GreenroomError(.invalidParameterValue, "the picture's size \(width)×\(height) is not encoded (2–\(Self.largestSide) pixels a side)")
        }
        let files = FileManager.default
        let scratch = folder(id).appendingPathComponent("hls.partial", isDirectory: true)
        try? files.removeItem(at: scratch)
        defer { try? files.removeItem(at: scratch) }
        var renditions: [VideoRendition] = []
        var master = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        for rung in Self.rungs(width: width, height: height) {
            let size = Self.size(width: width, height: height, at: rung)
            let directory = scratch.appendingPathComponent(rung.name, isDirectory: true)
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            var arguments = ["-v", "error", "-y"] + MediaTools.uploadInput + ["-i", original(id).path, "-map", "0:v:0"]
            if hasAudio { arguments += ["-map", "0:a:0"] }
            arguments += [
                "-vf", "scale=\(size.width):\(size.height),format=yuv420p", "-fpsmax", "60",
                "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-level:v", rung.level,
                "-b:v", String(rung.videoBitrate), "-maxrate", String(rung.videoBitrate * 107 / 100), "-bufsize", String(rung.videoBitrate * 3 / 2),
                "-force_key_frames", "expr:gte(t,n_forced*2)", "-sc_threshold", "0",
            ]
            if hasAudio { arguments += ["-c:a", "aac", "-b:a", String(Self.audioBitrate), "-ac", "2", "-ar", "48000"] }
            arguments += [
                "-f", "hls", "-hls_time", "4", "-hls_playlist_type", "vod", "-hls_segment_type", "mpegts",
                "-hls_segment_filename", directory.appendingPathComponent("seg%05d.ts").path, directory.appendingPathComponent("index.m3u8").path,
            ]
            let result = try await ChildProcess.run(ffmpeg, arguments, limit: processingLimit)
            guard result.exit.succeeded else {
                let reason = String(decoding: result.errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "\(result.exit)"
                throw GreenroomError(.invalidParameterValue, "encoding the \(rung.name) rendition failed (ffmpeg: \(reason.prefix(200)))")
            }
            let bandwidth = rung.videoBitrate * 107 / 100 + (hasAudio ? Self.audioBitrate : 0)
            master += "#EXT-X-STREAM-INF:BANDWIDTH=\(bandwidth),RESOLUTION=\(size.width)x\(size.height),CODECS=\"\(rung.avc1)\(hasAudio ? ",mp4a.40.2" : "")\"\n"
            // Relative to where the master is served, `/v1/videos/{id}/index.m3u8`.
            master += "hls/\(rung.name)/index.m3u8\n"
            renditions.append(VideoRendition(name: rung.name, width: size.width, height: size.height, bandwidth: bandwidth,
                                             playlistURL: "/v1/videos/\(id)/hls/\(rung.name)/index.m3u8"))
        }
        try Data(master.utf8).write(to: scratch.appendingPathComponent("index.m3u8"))
        try? files.removeItem(at: hlsFolder(id))
        try files.moveItem(at: scratch, to: hlsFolder(id))
        return renditions
    }

    /// A file of the video's HLS renditions (`index.m3u8`, `360p/index.m3u8`,
    /// `360p/seg00000.ts`), for a reader with `videos.read`, once encoded.
    package func hlsFile(_ id: String, path: String, identity: Identity) async throws -> URL {
        try Self.require(identity, VideoScope.read)
        let video = try await Self.load(storage, id).video
        guard video.hlsURL != nil else { throw GreenroomError(.notFound, "video \(id) is not encoded yet") }
        let url = hlsFolder(id).appendingPathComponent(path)
        guard Self.isHLSPath(path), FileManager.default.fileExists(atPath: url.path) else {
            throw GreenroomError(.notFound, "video \(id) has no \(path)")
        }
        return url
    }

    /// Whether `path` names a file the encoder writes: nothing else of the folder is served.
    package static func isHLSPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        func digits(_ text: Substring, _ range: ClosedRange<Int>) -> Bool { range.contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber } }
        switch parts.count {
        case 1: return parts[0] == "index.m3u8"
        case 2:
            guard parts[0].hasSuffix("p"), digits(parts[0].dropLast(), 1...5) else { return false }
            if parts[1] == "index.m3u8" { return true }
            return parts[1].hasPrefix("seg") && parts[1].hasSuffix(".ts") && digits(parts[1].dropFirst(3).dropLast(3), 1...6)
        default: return false
        }
    }
}
