import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension LivestreamEngine {
    /// The most tiles on the picture.
    package static let maxTiles = 6

    /// Looks at one livestream: starts ffmpeg (again) when it is not running, exited, stalled
    /// or shows the wrong feeds; says `LIVESTREAM_STARTED` once the playlist is playable.
    package func supervise(_ stream: String) async {
        guard let current = running.withLock({ $0[stream] }), let (owner, roomId) = try? owner(of: stream) else { return }
        let desired: [LivestreamSource]
        do {
            let lineup = try await owner.livestreamLineup(roomId: roomId)
            desired = Self.sources(feeds: try await media.feeds(in: stream), lineup: lineup)
        } catch {
            logger.warning("cannot read who is on the livestream of \(stream): \(error)")
            return
        }
        var reason: String?
        if let process = current.process, !process.isRunning {
            reason = "encoderExited"
        } else if current.process != nil, let launched = current.launchedAt,
                  Date().timeIntervalSince(launched) > Double(stallAfter.components.seconds),
                  Date().timeIntervalSince(playlistModified(stream) ?? .distantPast) > Double(stallAfter.components.seconds) {
            reason = "encoderStalled"
        }
        if current.process == nil || reason != nil || desired != current.sources {
            if let reason { logger.warning("livestream of \(stream): \(reason); starting ffmpeg again") }
            await relaunch(stream, generation: current.generation, sources: desired, reason: reason)
        } else if current.info.status == .LIVESTREAM_STARTING, let launched = current.launchedAt,
                  let modified = playlistModified(stream), modified >= launched.addingTimeInterval(-1),
                  modified > current.earlierPlaylist ?? .distantPast, isPlayable(stream) {
            var info = current.info
            info.status = .LIVESTREAM_STARTED
            info.reason = nil
            guard running.withLock({ state -> Bool in
                guard state[stream]?.generation == current.generation else { return false }
                state[stream]?.info = info
                return true
            }) else { return }
            try? await announce(stream, info)
            logger.info("livestream of \(stream) started")
        }
    }

    /// Stops the current ffmpeg and forwarders, forwards the tracks of `sources` to new ports
    /// and starts ffmpeg on them.
    private func relaunch(_ stream: String, generation: UUID, sources: [LivestreamSource], reason: String?) async {
        guard let old = running.withLock({ state -> Running? in
            guard var run = state[stream], run.generation == generation else { return nil }
            let old = run
            run.process = nil
            run.forwarders = []
            run.sources = sources
            state[stream] = run
            return old
        }) else { return }
        await tearDown(stream, process: old.process, forwarders: old.forwarders)

        // ffmpeg listens first, then Janus forwards: the first keyframe is not sent to a
        // port nobody reads yet.
        var tiles: [LivestreamEncoder.Tile] = []
        var chosen: [LivestreamSource] = []
        var ports: Set<Int> = []
        for source in sources {
            var tile = LivestreamEncoder.Tile()
            if let video = source.video, let port = Self.freePortPair(avoiding: ports) {
                ports.insert(port)
                tile.video = ForwardedTrack(mid: video.mid, kind: "video", codec: video.codec ?? "vp8", port: port, payloadType: 96)
            }
            if let audio = source.audio, let port = Self.freePortPair(avoiding: ports) {
                ports.insert(port)
                tile.audio = ForwardedTrack(mid: audio.mid, kind: "audio", codec: audio.codec ?? "opus", port: port, payloadType: 111)
            }
            guard tile.video != nil || tile.audio != nil else { continue }
            tiles.append(tile)
            chosen.append(source)
        }
        let encoder = LivestreamEncoder(tiles: tiles)
        let folder = folder(stream)
        // The playlist as the ffmpeg before left it: the new one has started when it writes
        // after this, not when this one's last write was recent.
        let earlierPlaylist = playlistModified(stream)
        var process: ChildProcess?
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var inputs: [String] = []
            for index in tiles.indices {
                let file = folder.appendingPathComponent("tile\(index).sdp")
                try Data(encoder.sdp(index).utf8).write(to: file)
                inputs.append(file.path)
            }
            let continuing = FileManager.default.fileExists(atPath: folder.appendingPathComponent(LivestreamEncoder.playlistName).path)
            process = try await launch(encoder.arguments(inputs: inputs, directory: folder.path, continuing: continuing), log: folder.appendingPathComponent("ffmpeg.log"))
        } catch {
            logger.error("cannot start ffmpeg for the livestream of \(stream): \(error)")
        }
        var forwarders: [(feedId: UInt64, ids: [UInt64])] = []
        var shown: [LivestreamSource] = []
        if process != nil, !chosen.isEmpty {
            try? await Task.sleep(for: .milliseconds(300))
            do {
                try await media.setKeyframeInterval(stream: stream, seconds: LivestreamEncoder.segmentSeconds)
            } catch {
                logger.warning("cannot ask the publishers of \(stream) for regular keyframes: \(error)")
            }
            for (source, tile) in zip(chosen, tiles) {
                do {
                    let tracks = [tile.video, tile.audio].compactMap { $0 }
                    forwarders.append((source.feed.feedId, try await media.forward(stream: stream, feedId: source.feed.feedId, tracks: tracks)))
                    shown.append(source)
                } catch {
                    logger.warning("cannot forward feed \(source.feed.feedId) of \(stream) to its livestream: \(error)")
                }
            }
        }
        let (layout, sharing) = Self.layout(shown)
        let launchedAt = Date()
        let (kept, info) = running.withLock { state -> (Bool, LivestreamInfo?) in
            guard var run = state[stream], run.generation == generation else { return (false, nil) }
            let before = run.info
            run.process = process
            run.forwarders = forwarders
            run.launchedAt = launchedAt
            run.earlierPlaylist = earlierPlaylist
            run.info.layout = layout
            run.info.sharing = sharing
            if let reason {
                run.info.status = .LIVESTREAM_STARTING
                run.info.reason = reason
            }
            state[stream] = run
            return (true, run.info == before ? nil : run.info)
        }
        guard kept else {
            // Stopped meanwhile: undo what this run made.
            await tearDown(stream, process: process, forwarders: forwarders)
            try? FileManager.default.removeItem(at: folder)
            return
        }
        if let info { try? await announce(stream, info) }
    }

    private func launch(_ arguments: [String], log: URL) async throws -> ChildProcess {
        guard let ffmpeg else { throw GreenroomError(.unavailable, "no ffmpeg") }
        return try await ChildProcess.start(ffmpeg, arguments: arguments, errors: .file(log.path))
    }

    /// When the playlist was last written.
    package func playlistModified(_ stream: String) -> Date? {
        let path = folder(stream).appendingPathComponent(LivestreamEncoder.playlistName).path
        return (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Whether the playlist lists three segments: a live playlist shorter than three target
    /// durations is one players should not start on (RFC 8216, 6.2.2 and 6.3.3).
    private func isPlayable(_ stream: String) -> Bool {
        let url = folder(stream).appendingPathComponent(LivestreamEncoder.playlistName)
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "#EXTINF").count - 1 >= 3
    }

    /// An even UDP port on 127.0.0.1 whose odd neighbour is free too (ffmpeg's RTP reader
    /// takes the next port for RTCP), above Linux's ephemeral range and Janus's RTP range.
    package static func freePortPair(avoiding taken: Set<Int>) -> Int? {
        for _ in 0..<64 {
            let port = 61_000 + 2 * Int.random(in: 0..<2_200)
            guard !taken.contains(port), isFreeUDP(port), isFreeUDP(port + 1) else { continue }
            return port
        }
        return nil
    }

    private static func isFreeUDP(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
