import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Recordings: a recording keeps the segments of the room's livestream (started for it when
/// it does not run) from the moment it starts to the moment it stops, then joins and cuts
/// them into one MP4 that becomes a video in the feed (``RecordingSink``).
///
/// The supervisor (twice a second, beside the livestreams') moves each recording along:
/// `RECORDING_STARTING` until the livestream plays, then `RECORDING_STARTED`, hard-linking
/// every new segment into the recording's folder; once stopped, `RECORDING_STOPPING` until a
/// segment that ends after the stop is kept (or the livestream is gone), then the MP4 is made
/// and handed over, and `RECORDING_STOPPED` names the video. A recording that reaches the
/// feed's largest upload stops by itself (`limitReached`).
extension LivestreamEngine {
    /// How long after the stop a segment must end to hold the stop's moment: the segment is
    /// listed up to half a second after ffmpeg ends it, and shows what happened up to about
    /// a second before (the jitter buffer and the encoder).
    static let stopMargin: TimeInterval = 1.5
    /// How long a stopped recording waits for that segment at most.
    static let stopWait: TimeInterval = 15
    /// The longest the MP4's encoding may take.
    static let makingLimit: Duration = .seconds(1800)

    /// The recording of `stream` as this node makes it, or `nil`.
    package func currentRecording(_ stream: String) -> RecordingInfo? { recordings.withLock { $0[stream]?.info } }

    /// Starts recording `stream` for `owner` (the user the video will belong to), starting
    /// the livestream when it does not run. The caller has checked that it may.
    package func startRecording(_ stream: String, owner: String) async throws -> RecordingInfo {
        try media.requireEnabled()
        guard recordingSink.value != nil else { throw GreenroomError(.unavailable, "this server keeps no videos to record into") }
        let wasRunning = current(stream) != nil
        let folder = recordingsRoot.appendingPathComponent(UUID().uuidString, isDirectory: true)
        let info = RecordingInfo(status: .RECORDING_STARTING, owner: owner, requestedAt: Date.wireNow)
        let limit = limit
        let (existing, added) = try recordings.withLock { state -> (RecordingInfo?, Bool) in
            if let run = state[stream] { return (run.info, false) }
            // Those being made into videos count too: each holds its segments and, at the
            // end, an ffmpeg.
            guard state.count < limit else {
                throw GreenroomError(.livestreamLimitReached, "this node makes \(limit) recordings, as many as it may (GREENROOM_LIVESTREAM_LIMIT)")
            }
            state[stream] = RecordingRun(info: info, folder: folder, ownsLivestream: !wasRunning)
            return (nil, true)
        }
        if let existing, !added {
            guard existing.status == .RECORDING_STARTING || existing.status == .RECORDING_STARTED else {
                throw GreenroomError(.alreadyExists, "the last recording of \(stream) is still being made into a video; start again once it has stopped")
            }
            return existing
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try await start(stream, forRecording: true)
            try await recordingChanges.withLock { try await announceRecording(stream, info) }
        } catch {
            recordings.withLock { _ = $0.removeValue(forKey: stream) }
            try? FileManager.default.removeItem(at: folder)
            if !wasRunning, current(stream) != nil, recordings.value[stream] == nil { await stop(stream) }
            throw error
        }
        logger.info("recording of \(stream) starting for \(owner)")
        return info
    }

    /// Stops recording `stream`: the recording becomes a video; `reason` is told when it was
    /// not asked. Answers its state, or the last one's when none records.
    @discardableResult
    package func stopRecording(_ stream: String, reason: String? = nil) async -> RecordingInfo {
        if let changed = await markRecordingStopping(stream, reason: reason) { return changed }
        if let info = currentRecording(stream) { return info }
        return (try? await media.storage.load(RecordingRecord.self, id: stream))?.info ?? RecordingInfo(status: .RECORDING_STOPPED)
    }

    /// Moves a recording of `stream` that is starting or recording to `RECORDING_STOPPING` and
    /// announces it; answers its new state, or `nil` when there was none to stop.
    @discardableResult
    package func markRecordingStopping(_ stream: String, reason: String?) async -> RecordingInfo? {
        try? await recordingChanges.withLock {
            let info = recordings.withLock { state -> RecordingInfo? in
                guard var run = state[stream], run.info.status == .RECORDING_STARTING || run.info.status == .RECORDING_STARTED else { return nil }
                run.info.status = .RECORDING_STOPPING
                run.info.stoppedAt = Date.wireNow
                run.info.reason = reason
                state[stream] = run
                return run.info
            }
            if let info { try? await announceRecording(stream, info) }
            return info
        }
    }

    /// Stores a recording's state and announces it on the room's stream, in one transaction.
    package func announceRecording(_ stream: String, _ info: RecordingInfo) async throws {
        let (owner, roomId) = try owner(of: stream)
        try await store(RecordingRecord(stream: stream, info: info, node: nodeId), announcing: try owner.recordingEvent(roomId: roomId, info))
    }

    /// The segments the livestream's playlist lists now, with their lengths.
    private func listedSegments(_ stream: String) -> [(name: String, duration: Double)] {
        let text = (try? String(contentsOf: folder(stream).appendingPathComponent(LivestreamEncoder.playlistName), encoding: .utf8)) ?? ""
        return RecordingMaker.segments(inPlaylist: text)
    }

    /// Hard-links the livestream's segments that a recording of `stream` has not kept yet.
    package func captureRecordedSegments(_ stream: String) {
        guard let run = recordings.value[stream], run.info.status == .RECORDING_STARTED || run.info.status == .RECORDING_STOPPING,
              !run.finishing else { return }
        let source = folder(stream)
        let now = Date()
        var kept: [RecordedSegment] = []
        var bytes: Int64 = 0
        let known = Set(run.segments.map(\.name)).union(run.seen)
        for (name, duration) in listedSegments(stream) where !known.contains(name) {
            let from = source.appendingPathComponent(name), to = run.folder.appendingPathComponent(name)
            guard link(from.path, to.path) == 0 || errno == EEXIST else {
                logger.warning("recording of \(stream) lost segment \(name): \(String(cString: strerror(errno)))")
                continue
            }
            kept.append(RecordedSegment(name: name, duration: duration, listedAt: now))
            bytes += ((try? FileManager.default.attributesOfItem(atPath: to.path))?[.size] as? NSNumber)?.int64Value ?? 0
        }
        guard !kept.isEmpty else { return }
        recordings.withLock { state in
            state[stream]?.segments += kept
            state[stream]?.bytes += bytes
        }
    }

    /// Moves every recording along (see the type's comment).
    package func superviseRecordings() async {
        let limit = recordingSink.value?.recordingByteLimit ?? .max
        for (stream, run) in recordings.value where !run.finishing {
            let live = current(stream)
            switch run.info.status {
            case .RECORDING_STARTING:
                guard let live else {
                    await fail(stream, reason: "livestreamStopped")
                    continue
                }
                guard live.status == .LIVESTREAM_STARTED else { continue }
                let seen = Set(listedSegments(stream).map(\.name))
                try? await recordingChanges.withLock {
                    let info = recordings.withLock { state -> RecordingInfo? in
                        guard var run = state[stream], run.info.status == .RECORDING_STARTING else { return nil }
                        run.info.status = .RECORDING_STARTED
                        run.info.startedAt = Date.wireNow
                        run.seen = seen
                        state[stream] = run
                        return run.info
                    }
                    if let info { try? await announceRecording(stream, info) }
                }
                logger.info("recording of \(stream) started")
            case .RECORDING_STARTED:
                captureRecordedSegments(stream)
                if live == nil {
                    await markRecordingStopping(stream, reason: "livestreamStopped")
                } else if recordings.value[stream].map({ $0.bytes >= limit }) == true {
                    logger.warning("recording of \(stream) reached \(limit) bytes, the largest video; stopping it")
                    await markRecordingStopping(stream, reason: "limitReached")
                }
            case .RECORDING_STOPPING:
                captureRecordedSegments(stream)
                guard let current = recordings.value[stream], let stoppedAt = current.info.stoppedAt else { continue }
                let covered = current.segments.last.map { $0.listedAt.timeIntervalSince(stoppedAt) >= Self.stopMargin } ?? false
                if covered || live == nil || Date().timeIntervalSince(stoppedAt) > Self.stopWait {
                    await finish(stream)
                }
            case .RECORDING_STOPPED:
                continue
            }
        }
    }

    /// Hands a stopped recording over: its livestream stops when it was started for it, and
    /// the video is made in a task of its own (encoding takes a while).
    private func finish(_ stream: String) async {
        guard let run = recordings.withLock({ state -> RecordingRun? in
            guard var run = state[stream], !run.finishing else { return nil }
            run.finishing = true
            state[stream] = run
            return run
        }) else { return }
        if run.ownsLivestream, current(stream) != nil {
            // Its last segments are kept by the stop before its files go.
            recordings.withLock { $0[stream]?.finishing = false }
            await stop(stream)
            recordings.withLock { $0[stream]?.finishing = true }
        }
        guard let final = recordings.value[stream] else { return }
        Task { await make(stream, final) }
    }

    /// Joins, cuts and encodes the segments into an MP4, hands it to the video feed and says
    /// `RECORDING_STOPPED` with the video (or with why there is none).
    private func make(_ stream: String, _ run: RecordingRun) async {
        var info = run.info
        info.status = .RECORDING_STOPPED
        defer { try? FileManager.default.removeItem(at: run.folder) }
        do {
            guard let ffmpeg, let sink = recordingSink.value else { throw GreenroomError(.unavailable, "no ffmpeg or video feed") }
            guard let startedAt = run.info.startedAt, let stoppedAt = run.info.stoppedAt,
                  let window = RecordingMaker.window(run.segments, startedAt: startedAt, stoppedAt: stoppedAt) else {
                // Stopped before the livestream played, or within half a second of it.
                info.reason = [run.info.reason, "nothingRecorded"].compactMap { $0 }.joined(separator: ", ")
                logger.info("recording of \(stream) stopped with nothing recorded")
                try? await recordingChanges.withLock {
                    recordings.withLock { _ = $0.removeValue(forKey: stream) }
                    try? await announceRecording(stream, info)
                }
                return
            }
            let list = run.folder.appendingPathComponent("segments.txt")
            try Data(RecordingMaker.list(run.segments).utf8).write(to: list)
            let output = run.folder.appendingPathComponent("recording.mp4")
            let made = try await ChildProcess.run(ffmpeg, RecordingMaker.arguments(list: list.path, window: window, output: output.path),
                                                  limit: Self.makingLimit)
            guard made.exit.succeeded else {
                throw GreenroomError(.internalError, "ffmpeg: \(String(decoding: made.errors.suffix(500), as: UTF8.self))")
            }
            let roomId = (try? owner(of: stream))?.roomId ?? stream
            let title = "Recording of \(StreamKind(of: stream) == .meeting ? "meeting" : "live event") \(roomId)"
            let extraData: [String: RawJSON] = ["recording": ["stream": .string(stream), "startedAt": .string(WireCoding.formatDate(startedAt))]]
            info.videoId = try await sink.storeRecording(output, owner: run.info.owner ?? "", title: title, extraData: extraData)
            info.duration = (window.length * 1000).rounded() / 1000
            logger.info("recording of \(stream) is video \(info.videoId ?? "?") (\(window.length) s)")
        } catch let error as GreenroomError {
            info.reason = "\(error.name): \(error.message)"
            logger.error("recording of \(stream) made no video: \(error.message)")
        } catch {
            info.reason = "failed: \(error)"
            logger.error("recording of \(stream) made no video: \(error)")
        }
        try? await recordingChanges.withLock {
            recordings.withLock { _ = $0.removeValue(forKey: stream) }
            try? await announceRecording(stream, info)
        }
    }

    /// Ends a recording that never began (its livestream went first).
    private func fail(_ stream: String, reason: String) async {
        try? await recordingChanges.withLock {
            guard let run = recordings.withLock({ $0.removeValue(forKey: stream) }) else { return }
            try? FileManager.default.removeItem(at: run.folder)
            var info = run.info
            info.status = .RECORDING_STOPPED
            info.stoppedAt = Date.wireNow
            info.reason = reason
            try? await announceRecording(stream, info)
        }
    }
}
