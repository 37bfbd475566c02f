import Foundation
import GreenroomCore
import GreenroomProtocol

/// The media tools found on this machine (run with ``ChildProcess/run(_:_:limit:)``).
package struct MediaTools: Sendable {
    package var ffprobe: String?
    package var ffmpeg: String?

    /// The tools named by the configuration, or found on `PATH`.
    package static func locate(ffprobe: String?, ffmpeg: String?) -> MediaTools {
        func find(_ name: String, _ configured: String?) -> String? {
            if let configured { return FileManager.default.isExecutableFile(atPath: configured) ? configured : nil }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        return MediaTools(ffprobe: find("ffprobe", ffprobe), ffmpeg: find("ffmpeg", ffmpeg))
    }

    /// The input options of every ffprobe and ffmpeg run on an uploaded file, before its
    /// `-i`: the file is read as a local file only (no network or other protocol, so a
    /// playlist naming a URL fetches nothing) and only by the demuxers of the containers a
    /// video feed takes (MP4/MOV, Matroska/WebM, AVI, MPEG-TS; not HLS, concat or the like,
    /// which open other files or URLs).
    package static let uploadInput = ["-protocol_whitelist", "file", "-format_whitelist", "mov,mp4,matroska,webm,avi,mpegts"]
}
