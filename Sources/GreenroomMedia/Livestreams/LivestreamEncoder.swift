import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// What one livestream's ffmpeg reads and how it lays the picture out: one input per tile
/// (an SDP file describing the RTP that Janus forwards to it), each scaled into a 640×360
/// tile; tiles side by side (one to three), or in two rows (four to six); the tiles' audio
/// mixed. It writes H.264 + AAC in 2-second MPEG-TS segments, a keyframe at each, into an HLS
/// playlist that keeps its media sequence across restarts (`append_list`), marking each
/// restart with a discontinuity.
package struct LivestreamEncoder {
    /// One tile: a feed's forwarded tracks.
    package struct Tile {
        var video: ForwardedTrack?
        var audio: ForwardedTrack?
    }

    package static let tileWidth = 640
    package static let tileHeight = 360
    /// The segment duration, in seconds.
    package static let segmentSeconds = 2
    package static let playlistName = "index.m3u8"

    package var tiles: [Tile]

    /// The grid: columns and rows.
    package var grid: (columns: Int, rows: Int) {
        switch tiles.count {
        case 0, 1: (1, 1)
        case 2, 3: (tiles.count, 1)
        case 4: (2, 2)
        default: (3, 2)
        }
    }

    /// The session description of tile `index`'s RTP, for ffmpeg's `-i`.
    package func sdp(_ index: Int) -> String {
        var lines = ["v=0", "o=- 0 0 IN IP4 127.0.0.1", "s=greenroom tile \(index)", "c=IN IP4 127.0.0.1", "t=0 0"]
        for track in [tiles[index].video, tiles[index].audio].compactMap({ $0 }) {
            lines.append("m=\(track.kind) \(track.port) RTP/AVP \(track.payloadType)")
            lines += Self.rtpmap(track)
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    package static func rtpmap(_ track: ForwardedTrack) -> [String] {
        let pt = track.payloadType
        switch track.codec.lowercased() {
        case "h264": return ["a=rtpmap:\(pt) H264/90000", "a=fmtp:\(pt) packetization-mode=1"]
        case "vp9": return ["a=rtpmap:\(pt) VP9/90000"]
        case "av1": return ["a=rtpmap:\(pt) AV1/90000"]
        case "vp8": return ["a=rtpmap:\(pt) VP8/90000"]
        case "pcmu": return ["a=rtpmap:\(pt) PCMU/8000"]
        case "pcma": return ["a=rtpmap:\(pt) PCMA/8000"]
        case "g722": return ["a=rtpmap:\(pt) G722/8000"]
        default: return track.kind == "audio" ? ["a=rtpmap:\(pt) opus/48000/2"] : ["a=rtpmap:\(pt) VP8/90000"]
        }
    }

    /// ffmpeg's arguments: the tiles' SDP files are `inputs` (one per tile, in order), the
    /// playlist and segments go into `directory`. `continuing` a playlist written by an
    /// earlier ffmpeg, its segments are kept and the new ones follow a discontinuity (on a
    /// fresh playlist ffmpeg would put that tag in the header, which players refuse).
    package func arguments(inputs: [String], directory: String, continuing: Bool) -> [String] {
        var arguments = ["-hide_banner", "-nostdin", "-loglevel", "warning", "-y"]
        for input in inputs {
            arguments += ["-protocol_whitelist", "file,udp,rtp", "-fflags", "+genpts", "-reorder_queue_size", "64",
                          "-analyzeduration", "5000000", "-i", input]
        }
        arguments += ["-filter_complex", filter, "-map", "[vout]", "-map", "[aout]",
                      "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
                      "-r", "30", "-g", "\(30 * Self.segmentSeconds)", "-keyint_min", "\(30 * Self.segmentSeconds)", "-sc_threshold", "0",
                      "-force_key_frames", "expr:gte(t,n_forced*\(Self.segmentSeconds))",
                      "-b:v", "\(1200 * grid.columns * grid.rows)k", "-maxrate", "\(1500 * grid.columns * grid.rows)k", "-bufsize", "\(3000 * grid.columns * grid.rows)k",
                      "-c:a", "aac", "-b:a", "128k", "-ar", "48000", "-ac", "2",
                      "-f", "hls", "-hls_time", "\(Self.segmentSeconds)", "-hls_list_size", "6", "-hls_delete_threshold", "6",
                      "-hls_flags", "delete_segments+independent_segments+omit_endlist" + (continuing ? "+append_list+discont_start" : ""),
                      "-hls_segment_type", "mpegts", "-hls_segment_filename", "\(directory)/seg%06d.ts",
                      "\(directory)/\(Self.playlistName)"]
        return arguments
    }

    /// The filter graph: each tile scaled and padded into its cell (a grey cell for a tile
    /// without video, and for the empty cells of the grid), the rows stacked; the audio of the
    /// tiles that have it mixed (silence when none has). Every input starts at zero, so that
    /// tiles joined at different moments line up.
    package var filter: String {
        let (columns, rows) = grid
        let w = Self.tileWidth, h = Self.tileHeight
        var chains: [String] = []
        var cells: [String] = []
        for (index, tile) in tiles.enumerated() {
            if tile.video != nil {
                chains.append("[\(index):v:0]setpts=PTS-STARTPTS,scale=\(w):\(h):force_original_aspect_ratio=decrease,"
                    + "pad=\(w):\(h):(ow-iw)/2:(oh-ih)/2:color=black,setsar=1,fps=30[v\(index)]")
            } else {
                chains.append("color=c=0x303030:s=\(w)x\(h):r=30,realtime[v\(index)]")
            }
            cells.append("[v\(index)]")
        }
        while cells.count < columns * rows {
            let name = "[e\(cells.count)]"
            chains.append("color=c=0x303030:s=\(w)x\(h):r=30,realtime\(name)")
            cells.append(name)
        }
        var rowNames: [String] = []
        for row in 0..<rows {
            let members = cells[(row * columns)..<((row + 1) * columns)].joined()
            let name = "[r\(row)]"
            chains.append(columns == 1 ? "\(members)null\(name)" : "\(members)hstack=inputs=\(columns)\(name)")
            rowNames.append(name)
        }
        chains.append(rows == 1 ? "\(rowNames[0])null[vout]" : "\(rowNames.joined())vstack=inputs=\(rows)[vout]")
        let audio = tiles.indices.filter { tiles[$0].audio != nil }
        for index in audio {
            chains.append("[\(index):a:0]asetpts=PTS-STARTPTS,aresample=48000:async=1,aformat=channel_layouts=stereo[a\(index)]")
        }
        switch audio.count {
        case 0: chains.append("anullsrc=r=48000:cl=stereo,arealtime[aout]")
        case 1: chains.append("[a\(audio[0])]anull[aout]")
        default: chains.append(audio.map { "[a\($0)]" }.joined() + "amix=inputs=\(audio.count):duration=longest:dropout_transition=0[aout]")
        }
        return chains.joined(separator: ";")
    }
}
