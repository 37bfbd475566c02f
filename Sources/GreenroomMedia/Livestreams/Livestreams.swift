import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle

/// A livestream's state as stored, under the room's stream: what `meeting.get` shows.
package struct LivestreamRecord: StoredRecord {
    package static let recordKind = "livestream"
    package var stream: String
    package var info: LivestreamInfo
    /// The node that runs it: the one that serves its playlist and segments.
    package var node: String

    package var recordId: String { stream }
}

/// The owner of a kind of room that has livestreams (meetings, live events): it says who is
/// on the picture, how a change of state is announced, and who may watch.
package protocol LivestreamOwner: Sendable {
    /// Who should be on the picture, left to right (participant ids in a meeting, user ids in
    /// a live event): the pinned ones when any is; otherwise every publisher, in the order of
    /// `all` (publishers it does not name follow). See ``LivestreamEngine/sources(feeds:lineup:)``.
    func livestreamLineup(roomId: String) async throws -> LivestreamLineup
    /// The event that announces a livestream's new state on the room's stream.
    func livestreamEvent(roomId: String, _ info: LivestreamInfo) throws -> EventAppend
    /// Throws unless `identity` may watch the room's livestream (may read the room).
    func authorizeLivestream(_ identity: Identity, roomId: String) async throws
    /// The event that announces a recording's new state on the room's stream.
    func recordingEvent(roomId: String, _ info: RecordingInfo) throws -> EventAppend
}

/// The livestreams this node runs: for each, Janus forwards the RTP of the feeds on the
/// picture to local ports and one ffmpeg composes them into HLS in
/// `<data dir>/livestreams/<stream>/` (see ``LivestreamEncoder``).
///
/// A supervisor looks at every livestream twice a second: when the feeds on the picture
/// should change (a pin, a publisher come or gone), ffmpeg is started again with the new
/// layout; when ffmpeg exited, or has written no segment for ``stallAfter``, the state goes
/// back to `LIVESTREAM_STARTING` with the reason and ffmpeg is started again. The playlist
/// keeps its media sequence across these restarts, so players carry on by themselves. At
/// most ``limit`` livestreams run on a node at once.
package final class LivestreamEngine: Service, Sendable {
    package let media: MediaPlane
    package let events: EventLog
    /// The ffmpeg to run; livestreams answer `unavailable` without one.
    package let ffmpeg: String?
    /// Where each livestream's folder is made.
    package let root: URL
    /// The most livestreams this node runs at once.
    package let limit: Int
    package let nodeId: String
    package let logger: Logger
    /// How long ffmpeg may go without writing a segment before it counts as stalled.
    package let stallAfter: Duration

    private let owners = Locked<[StreamKind: any LivestreamOwner]>([:])
    package let running = Locked<[String: Running]>([:])
    /// The recordings this node makes, by stream (see `LivestreamEngine+Recording.swift`).
    package let recordings = Locked<[String: RecordingRun]>([:])
    /// Where each recording's folder is made.
    package let recordingsRoot: URL
    /// Where recordings go once made (the video feed sets itself).
    package let recordingSink = Locked<(any RecordingSink)?>(nil)
    /// Orders each recording's changes of state with their announcements.
    package let recordingChanges = AsyncLock()

    /// One livestream this node runs.
    package struct Running {
        var info: LivestreamInfo
        /// Tells this run from a later one of the same room (stopped and started again).
        let generation = UUID()
        /// The tiles on the picture now, left to right.
        var sources: [LivestreamSource] = []
        var forwarders: [(feedId: UInt64, ids: [UInt64])] = []
        var process: ChildProcess?
        /// When the current ffmpeg was started.
        var launchedAt: Date?
        /// When the playlist was last written before it (by an earlier ffmpeg), if it was.
        var earlierPlaylist: Date?
    }

    package init(media: MediaPlane, events: EventLog, ffmpeg: String?, root: URL, limit: Int, nodeId: String, logger: Logger,
         stallAfter: Duration = .seconds(10)) {
        self.media = media
        self.events = events
        self.ffmpeg = ffmpeg
        self.root = root
        self.recordingsRoot = root.deletingLastPathComponent().appendingPathComponent("recordings", isDirectory: true)
        self.limit = limit
        self.nodeId = nodeId
        self.logger = logger
        self.stallAfter = stallAfter
    }

    /// Registers the owner of a kind of room.
    package func register(_ kind: StreamKind, owner: any LivestreamOwner) {
        owners.withLock { $0[kind] = owner }
    }

    package func owner(of stream: String) throws -> (owner: any LivestreamOwner, roomId: String) {
        let kind = StreamKind(of: stream)
        guard let id = kind.id(in: stream), let owner = owners.withLock({ $0[kind] }) else {
            throw GreenroomError(.notFound, "\(stream) is not a meeting's or live event's stream")
        }
        return (owner, id)
    }

    /// The folder of the livestream of `stream`.
    package func folder(_ stream: String) -> URL {
        root.appendingPathComponent(stream.replacingOccurrences(of: ":", with: "_"), isDirectory: true)
    }

    /// The livestream of `stream` as this node runs it, or `nil`.
    package func current(_ stream: String) -> LivestreamInfo? { running.withLock { $0[stream]?.info } }

    /// How many livestreams this node runs.
    package var count: Int { running.withLock { $0.count } }

    // MARK: Starting and stopping

    /// Starts the livestream of `stream` (one that runs answers its state). The caller has
    /// checked that it may.
    package func start(_ stream: String, forRecording: Bool = false) async throws -> LivestreamInfo {
        try media.requireEnabled()
        guard ffmpeg != nil else {
            throw GreenroomError(.unavailable, "livestreams need ffmpeg: install it or set GREENROOM_FFMPEG")
        }
        _ = try owner(of: stream)
        let limit = limit
        let (info, started) = try running.withLock { state -> (LivestreamInfo, Bool) in
            if let existing = state[stream] { return (existing.info, false) }
            guard state.count < limit else {
                throw GreenroomError(.livestreamLimitReached, "this node runs \(limit) livestreams, as many as it may (GREENROOM_LIVESTREAM_LIMIT)")
            }
            let info = LivestreamInfo(status: .LIVESTREAM_STARTING, playlist: LivestreamInfo.playlistPath(stream), startedAt: Date.wireNow)
            state[stream] = Running(info: info)
            return (info, true)
        }
        if !forRecording {
            // Asked for in its own right: it no longer stops with a recording that started it.
            recordings.withLock { $0[stream]?.ownsLivestream = false }
        }
        guard started else { return info }
        let folder = folder(stream)
        try? FileManager.default.removeItem(at: folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try await announce(stream, info)
        } catch {
            running.withLock { _ = $0.removeValue(forKey: stream) }
            throw error
        }
        logger.info("livestream of \(stream) starting")
        return info
    }

    /// Stops the livestream of `stream` and removes its files; `reason` is told when it was
    /// not asked (`ended`). Stopping one that does not run on this node answers `LIVESTREAM_STOPPED`.
    @discardableResult
    package func stop(_ stream: String, reason: String? = nil) async -> LivestreamInfo {
        // A recording stops with it, with its reason, before the supervisor can see a
        // recording without a livestream (and say `livestreamStopped`); it keeps what ffmpeg
        // writes as it ends (below).
        await markRecordingStopping(stream, reason: reason ?? "livestreamStopped")
        guard let taken = running.withLock({ $0.removeValue(forKey: stream) }) else {
            return LivestreamInfo(status: .LIVESTREAM_STOPPED, playlist: LivestreamInfo.playlistPath(stream), reason: reason)
        }
        var info = taken.info
        info.status = .LIVESTREAM_STOPPING
        info.reason = reason
        try? await announce(stream, info)
        await tearDown(stream, process: taken.process, forwarders: taken.forwarders)
        captureRecordedSegments(stream)
        try? await media.setKeyframeInterval(stream: stream, seconds: 0)
        try? FileManager.default.removeItem(at: folder(stream))
        info.status = .LIVESTREAM_STOPPED
        info.layout = []
        try? await announce(stream, info)
        logger.info("livestream of \(stream) stopped")
        return info
    }

    /// Stores a livestream's state and announces it on the room's stream, in one transaction.
    package func announce(_ stream: String, _ info: LivestreamInfo) async throws {
        let (owner, roomId) = try owner(of: stream)
        try await store(LivestreamRecord(stream: stream, info: info, node: nodeId), announcing: try owner.livestreamEvent(roomId: roomId, info))
    }

    /// Saves a room's state record and appends the event that announces it, in one transaction.
    package func store(_ record: some StoredRecord, announcing event: EventAppend) async throws {
        try await events.transact { transaction in
            try await transaction.save(record)
            _ = try await transaction.append([event])
        }
    }

    /// Stops ffmpeg (SIGTERM, then SIGKILL after two seconds) and the forwarders.
    package func tearDown(_ stream: String, process: ChildProcess?, forwarders: [(feedId: UInt64, ids: [UInt64])]) async {
        if let process {
            process.stop()
            _ = await process.exited()
        }
        for (feedId, ids) in forwarders { await media.stopForwarding(stream: stream, feedId: feedId, forwarders: ids) }
    }

    // MARK: Serving

    /// The file `name` (the playlist or a segment) of the livestream of `stream`, for a
    /// reader the room's owner lets watch.
    package func file(_ stream: String, name: String, identity: Identity) async throws -> URL {
        let (owner, roomId) = try owner(of: stream)
        do {
            try await owner.authorizeLivestream(identity, roomId: roomId)
        } catch let error as GreenroomError where ![.notFound, .meetingNotFound, .liveEventIdNotFound].contains(error.errorCode) {
            throw GreenroomError(.permissionDenied, "this token may not watch the livestream of \(stream): \(error.message)")
        }
        guard Self.isServed(name) else { throw GreenroomError(.notFound, "a livestream has no file \(name)") }
        guard current(stream) != nil else { throw GreenroomError(.notFound, "no livestream of \(stream) runs on this node") }
        let url = folder(stream).appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw GreenroomError(.notFound, "the livestream of \(stream) has no \(name) (yet)")
        }
        return url
    }

    /// Whether `name` is a file ffmpeg writes for viewers: the playlist or a segment.
    package static func isServed(_ name: String) -> Bool {
        if name == LivestreamEncoder.playlistName { return true }
        guard name.hasPrefix("seg"), name.hasSuffix(".ts") else { return false }
        let digits = name.dropFirst(3).dropLast(3)
        return (1...9).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    // MARK: Running

    package func run() async throws {
        // Recordings a node that stopped without shutting down left half made.
        try? FileManager.default.removeItem(at: recordingsRoot)
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                for stream in running.withLock({ Array($0.keys) }) { await supervise(stream) }
                await superviseRecordings()
                try? await Task.sleep(for: .milliseconds(500))
            }
        } onGracefulShutdown: {}
        // Shutting down: ffmpeg and the files go; the rooms' records keep their last state
        // (the event log may be closing), and a start on the next run begins afresh.
        let all = running.withLock { state in defer { state = [:] }; return state }
        for (stream, run) in all {
            run.process?.send(SIGKILL)
            try? FileManager.default.removeItem(at: folder(stream))
        }
        // A recording not yet made into a video is lost with the node: its segments go.
        let unfinished = recordings.withLock { state in defer { state = [:] }; return state }
        for (_, run) in unfinished { try? FileManager.default.removeItem(at: run.folder) }
    }
}
