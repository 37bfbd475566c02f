import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A room's recording state as stored, under the room's stream: what `meeting.get` shows.
package struct RecordingRecord: StoredRecord {
    package static let recordKind = "recording"
    package var stream: String
    package var info: RecordingInfo
    /// The node that records it.
    package var node: String

    package var recordId: String { stream }
}

/// Where recordings go once made: the video feed, which owns the file from then on.
package protocol RecordingSink: Sendable {
    /// The most bytes one recording may take (the feed's largest upload).
    var recordingByteLimit: Int64 { get }
    /// Makes `file`, an MP4, a video owned by `owner` and queues it for processing (the file
    /// is moved away); answers the video's id. Throws as creating a video does (the owner's
    /// quota, a full processing queue).
    func storeRecording(_ file: URL, owner: String, title: String, extraData: [String: RawJSON]) async throws -> String
}

/// One recording this node makes: the livestream's segments, hard-linked into a folder of
/// its own as the livestream's ffmpeg writes them, so that the livestream's own deleting
/// (it keeps a few) or its restarts (a new layout) lose none.
package struct RecordingRun: Sendable {
    package var info: RecordingInfo
    /// Its folder: the segments and, at the end, the MP4.
    package let folder: URL
    /// Whether the livestream was started for it, and so stops with it.
    package var ownsLivestream: Bool
    /// The segments the playlist listed when recording began, left out.
    package var seen: Set<String> = []
    /// The segments kept, oldest first.
    package var segments: [RecordedSegment] = []
    /// Their bytes.
    package var bytes: Int64 = 0
    /// Handed over to be made into a video.
    package var finishing = false
}

/// A livestream segment a recording keeps.
package struct RecordedSegment: Sendable, Hashable {
    /// Its name in the livestream's folder (and the recording's).
    package var name: String
    /// Its length, from the playlist.
    package var duration: Double
    /// When the supervisor first saw it listed: at most half a second after ffmpeg finished it.
    package var listedAt: Date
}

/// How a recording's segments become one MP4: the concat demuxer reads them in order (each
/// segment's timestamps start where the one before ended, so the restarts of a livestream's
/// ffmpeg join seamlessly), the part before the moment recording began and after the moment
/// it was stopped are cut, and the rest is encoded once more, since a cut that copied would
/// start at the keyframe before it. ffmpeg reads files only, and the concat demuxer in its
/// safe mode: the list names the segments by their plain names, in the list's own folder.
package enum RecordingMaker {
    /// The playlist's segments with their lengths, oldest first.
    package static func segments(inPlaylist text: String) -> [(name: String, duration: Double)] {
        var result: [(String, Double)] = []
        var duration: Double?
        for line in text.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst(8).prefix { $0 != "," })
            } else if !line.hasPrefix("#"), let length = duration {
                let name = String(line.split(separator: "?")[0])
                if LivestreamEngine.isServed(name), name != LivestreamEncoder.playlistName { result.append((name, length)) }
                duration = nil
            }
        }
        return result
    }

    /// Where in the joined segments the recording lies: from `offset` seconds for `length`
    /// seconds. The first segment began `duration` before it was listed (a little earlier in
    /// fact, which only moves the cut by the encoder's delay); the recording began at
    /// `startedAt` and ended at `stoppedAt`.
    package static func window(_ segments: [RecordedSegment], startedAt: Date, stoppedAt: Date) -> (offset: Double, length: Double)? {
        guard let first = segments.first else { return nil }
        let firstBegan = first.listedAt.addingTimeInterval(-first.duration)
        let offset = max(0, startedAt.timeIntervalSince(firstBegan))
        let total = segments.reduce(0) { $0 + $1.duration }
        let length = min(stoppedAt.timeIntervalSince(startedAt), total - offset)
        guard length > 0.5 else { return nil }
        return (offset, length)
    }

    /// The concat demuxer's list of the segments.
    package static func list(_ segments: [RecordedSegment]) -> String {
        segments.map { "file '\($0.name)'\nduration \($0.duration)\n" }.joined()
    }

    /// ffmpeg's arguments: the list `list` in the recording's folder, cut to `window`, into `output`.
    package static func arguments(list: String, window: (offset: Double, length: Double), output: String) -> [String] {
        ["-hide_banner", "-nostdin", "-loglevel", "error", "-y",
         "-protocol_whitelist", "file", "-f", "concat", "-i", list,
         "-ss", String(format: "%.3f", window.offset), "-t", String(format: "%.3f", window.length),
         "-map", "0:v:0", "-map", "0:a:0?",
         "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-pix_fmt", "yuv420p",
         "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2",
         "-movflags", "+faststart", output]
    }
}
