import Foundation

/// The WebRTC stack an app brings: two peer connections per room, one that sends the local
/// camera and microphone, one that receives everyone else. On Apple platforms implement it
/// with WebRTC.framework (`RTCPeerConnectionFactory`): a send-only `RTCPeerConnection` with
/// the local audio and video tracks added as transceivers, and a receive-only one whose
/// `didAdd rtpReceiver` callbacks name each track's `mid`, which ``MediaSession/tracks``
/// maps to a participant. Gather ICE candidates before returning an SDP (wait for
/// `iceGatheringState == .complete`): the SDK sends them with it.
///
/// Muting (``Meeting/muteMic()``, ``Meeting/disableWebcam()``, a live event host's
/// ``LiveEvent/muteAudioInput()``) calls ``setSending(_:_:)``: stop sending the track, do not
/// only disable it. A disabled track still sends silence or black frames, which the media
/// server cannot tell from a quiet room; a sender without a track sends nothing, and the
/// server turns the participant's microphone or camera off for everyone because no media
/// arrives, whoever set which flag.
///
/// The SDK owns the signalling: when to publish, what to receive, renegotiating as feeds
/// come and go and as the local participant's mode changes, and publishing again after the
/// media server came back.
public protocol MediaEngine: Sendable {
    /// Makes the sending connection (again, if it was closed) with the local tracks and
    /// returns its offer. To send the camera in simulcast, add its transceiver with three
    /// `sendEncodings` in this order, the largest first as the media server reads them: rids
    /// `h`, `m` and `l`, scaled down by 1, 2 and 4 (VP8 or H.264, a camera of 960×540 or more
    /// for all three). Receivers then choose a layer with ``Participant/setQuality(_:)``.
    func makePublishOffer() async throws -> SessionDescription
    /// Applies the media server's answer to the sending connection.
    func acceptPublishAnswer(_ answer: SessionDescription) async throws
    /// Closes the sending connection and stops the local tracks.
    func stopPublishing() async
    /// Applies the media server's offer to the receiving connection (making it if needed)
    /// and returns the answer.
    func answerReceiveOffer(_ offer: SessionDescription) async throws -> SessionDescription
    /// Closes the receiving connection.
    func stopReceiving() async
    /// Stops or resumes sending the local microphone (`.audio`) or camera (`.video`) on the
    /// sending connection, without renegotiating: with WebRTC.framework, set the
    /// transceiver's `sender.track` to `nil`, and back to the local track (in a browser,
    /// `RTCRtpSender.replaceTrack`). Called between ``makePublishOffer()`` and sending the
    /// offer, for the kinds muted before publishing.
    func setSending(_ kind: MediaKind, _ sending: Bool) async throws
    /// The STUN and TURN servers (with the caller's TURN credential) for the connections
    /// made from now on, and for an ICE restart of those open (`setConfiguration`): put
    /// `servers.iceServers` in `RTCConfiguration.iceServers`. Called before the first
    /// connection and again before one made (or restarted) after the credential's
    /// `expiresAt`. The default does nothing, for an engine that reaches the media server
    /// directly.
    func useICEServers(_ servers: MediaICEServers) async
    /// The ICE state changes of the engine's connections, as they happen, for as long as the
    /// engine is used: with WebRTC.framework, from `peerConnection(_:didChange:)` of
    /// `RTCIceConnectionState`. The session restarts ICE on a connection that stays
    /// `disconnected` for ``MediaSession/disconnectedGrace`` or goes `failed` (see
    /// ``MediaSession/restartICE()``). The default reports nothing: the app restarts ICE
    /// itself, if at all.
    func connectionChanges() -> AsyncStream<MediaConnectionChange>
    /// An offer for the sending connection as it is, tracks kept, with fresh ICE credentials
    /// (`RTCMediaConstraints` with `IceRestart`; in a browser `createOffer({iceRestart: true})`),
    /// its candidates gathered. The default throws, and the session publishes afresh instead
    /// (a new connection, and a new feed).
    func makeICERestartOffer() async throws -> SessionDescription
    /// What the engine's connections have counted since they were made (WebRTC's
    /// statistics: with WebRTC.framework `RTCPeerConnection.statistics`, in a browser
    /// `getStats()`), read every ``MediaSession/statsInterval``: the session reports the
    /// loss, round trip and jitter to the server, which rates the participant's connection
    /// quality for everyone (``MeetingEventListener/onConnectionQualityChanged(participantId:quality:)``)
    /// and, for the feeds received with `auto`, chooses a smaller layer while packets are
    /// lost. The default is `nil`: nothing is reported.
    func transportStats() async -> MediaTransportStats?
}

extension MediaEngine {
    /// Does nothing: the engine's connections use no STUN or TURN server.
    public func useICEServers(_ servers: MediaICEServers) async {}
    /// Reports nothing.
    public func connectionChanges() -> AsyncStream<MediaConnectionChange> { AsyncStream { $0.finish() } }
    /// Throws `unknownOperation`: this engine cannot restart ICE on its sending connection.
    public func makeICERestartOffer() async throws -> SessionDescription {
        throw GreenroomError(.unknownOperation, "this media engine does not restart ICE")
    }
    /// Counts nothing: the session reports no connection quality.
    public func transportStats() async -> MediaTransportStats? { nil }
}

/// Audio and video in one room (a meeting's or a live event's stream), driven through an
/// app's ``MediaEngine``: publishes while allowed, receives every other feed, and follows the
/// room's media events. Made by ``Meeting/attachMedia(_:)``.
public actor MediaSession {
    /// The room's stream (`meeting:ID`, `live:ID`).
    public nonisolated let stream: String
    let client: GreenroomClient
    let engine: any MediaEngine
    /// The local participant's id in the room.
    let participantId: String

    /// Whether the local tracks are published now.
    public private(set) var isPublishing = false
    /// The local feed while published.
    public internal(set) var localFeed: MediaFeed?
    /// The room's feeds, by id.
    public private(set) var feeds: [UInt64: MediaFeed] = [:]
    /// The tracks received, by `mid` in the receiving connection.
    public private(set) var tracks: [String: MediaSubscribedTrack] = [:]
    /// The last error of a step the session took by itself (re-publishing, renegotiating).
    public private(set) var lastError: (any Error)?
    /// The local kinds not sent (muted microphone, camera off), kept across re-publishing.
    public private(set) var muted: Set<MediaKind>

    private var canPublish: Bool
    private var canReceive: Bool
    private var subscribed: Set<UInt64> = []
    var receiving = false
    private var tail: Task<Void, Never>?
    /// How many times ICE was restarted on either connection.
    public internal(set) var iceRestarts = 0
    /// The connections' ICE states, as the engine last reported them.
    public internal(set) var connectionStates: [MediaConnectionRole: MediaConnectionState] = [:]
    /// Restarts ICE on a connection while it is down, by role.
    var restarters: [MediaConnectionRole: Task<Void, Never>] = [:]
    /// Follows the engine's connection changes, once started.
    var watcher: Task<Void, Never>?
    /// Reports the engine's statistics every ``statsInterval``, once started.
    var reporter: Task<Void, Never>?
    /// The figures of the report before, to count the packets since.
    var lastStats: MediaTransportStats?
    /// The ICE servers the engine was given last.
    private var iceServers: MediaICEServers?

    init(client: GreenroomClient, stream: String, participantId: String, engine: any MediaEngine, canPublish: Bool, canReceive: Bool,
         muted: Set<MediaKind> = []) {
        self.client = client
        self.muted = muted
        self.stream = stream
        self.participantId = participantId
        self.engine = engine
        self.canPublish = canPublish
        self.canReceive = canReceive
    }

    /// Runs signalling steps one after another, in the order they were asked for.
    func enqueue(_ step: @escaping @Sendable (MediaSession) async throws -> Void) {
        let previous = tail
        tail = Task {
            await previous?.value
            do {
                try await step(self)
            } catch {
                self.failed(error)
            }
        }
    }

    private func failed(_ error: any Error) { lastError = error }

    /// Waits until every step asked for so far has run.
    public func settled() async {
        while let current = tail {
            await current.value
            if tail == current { return }
        }
    }

    // MARK: Starting and stopping

    /// Publishes (when allowed) and receives every feed in the room; after a reconnect (the
    /// server ended the old connection's sessions) the engine's connections are closed first
    /// and made again, a fresh ICE negotiation.
    func start() {
        watchConnections()
        startReporting()
        enqueue { session in
            await session.teardown(publishing: true, receiving: true)
            if await session.canPublish { try await session.publish() }
            try await session.receiveAll()
        }
    }

    /// Stops publishing and receiving.
    public func stop() async {
        await stop(leavingRoom: true)
    }

    /// The room is gone (the meeting or live event ended): closes the engine's connections
    /// and stops the local tracks, without asking the server to leave a room it destroyed.
    func roomEnded() async {
        await stop(leavingRoom: false)
    }

    private func stop(leavingRoom: Bool) async {
        canPublish = false
        canReceive = false
        stopWatching()
        enqueue { session in
            if leavingRoom {
                _ = try? await session.client.send(MediaOperation.leave, args: MediaRoomRef(stream: session.stream))
            }
            await session.teardown(publishing: true, receiving: true)
        }
        await settled()
    }

    func teardown(publishing: Bool, receiving: Bool) async {
        if publishing, isPublishing || localFeed != nil {
            isPublishing = false
            localFeed = nil
            await engine.stopPublishing()
        }
        if receiving {
            if self.receiving { await engine.stopReceiving() }
            self.receiving = false
            subscribed = []
            tracks = [:]
        }
    }

    /// Stops or resumes sending a local kind (see ``MediaEngine/setSending(_:_:)``); kept for
    /// every later publish. The meeting's and live event's mute calls use it.
    public func setSending(_ kind: MediaKind, _ sending: Bool) {
        if sending { muted.remove(kind) } else { muted.insert(kind) }
        enqueue { session in
            guard await session.isPublishing else { return }
            try await session.engine.setSending(kind, sending)
        }
    }

    /// Gives the engine the room's ICE servers before it makes a connection: the first
    /// time, and when the TURN credential it has expires within a minute.
    func refreshICEServers() async throws {
        if let current = iceServers, current.expiresAt.map({ $0.timeIntervalSinceNow > 60 }) ?? true { return }
        let fresh: MediaICEServers
        do {
            fresh = try await client.send(MediaOperation.iceServers, args: MediaRoomRef(stream: stream))
        } catch let error as GreenroomError where error.is(.unknownOperation) {
            // A server from before `media.iceServers`: it names no ICE servers.
            fresh = MediaICEServers(iceServers: [])
        }
        iceServers = fresh
        await engine.useICEServers(fresh)
    }

    func publish() async throws {
        guard !isPublishing else { return }
        try await refreshICEServers()
        let offer = try await engine.makePublishOffer()
        do {
            // Before the media server hears of the feed, so that it never sees a muted kind flow.
            for kind in muted { try await engine.setSending(kind, false) }
            let result = try await client.send(MediaOperation.publish, args: MediaPublishArgs(stream: stream, jsep: offer))
            try await engine.acceptPublishAnswer(result.jsep)
            isPublishing = true
            localFeed = result.feed
        } catch {
            await engine.stopPublishing()
            throw error
        }
    }

    private func receiveAll() async throws {
        guard canReceive else { return }
        let room = try await client.send(MediaOperation.feeds, args: MediaRoomRef(stream: stream))
        for feed in room.feeds { feeds[feed.feedId] = feed }
        try await subscribe(room.feeds.filter { $0.participantId != participantId }.map(\.feedId))
    }

    private func subscribe(_ feedIds: [UInt64]) async throws {
        let wanted = feedIds.filter { !subscribed.contains($0) && $0 != localFeed?.feedId }
        guard canReceive, !wanted.isEmpty else { return }
        let result = try await client.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: stream, feeds: wanted))
        subscribed.formUnion(wanted)
        try await negotiate(result)
    }

    private func unsubscribe(_ feedId: UInt64) async throws {
        guard subscribed.remove(feedId) != nil else { return }
        tracks = tracks.filter { $0.value.feedId != feedId }
        let result = try await client.send(MediaOperation.unsubscribe, args: MediaSubscribeArgs(stream: stream, feeds: [feedId]))
        try await negotiate(result)
    }

    func negotiate(_ result: MediaSubscribeResult) async throws {
        for track in result.streams { tracks[track.mid] = track }
        guard let offer = result.jsep else { return }
        if !receiving { try await refreshICEServers() }
        let answer = try await engine.answerReceiveOffer(offer)
        receiving = true
        _ = try await client.send(MediaOperation.answer, args: MediaAnswerArgs(stream: stream, jsep: answer))
    }

    // MARK: Following the room

    /// The media event (`media.published`, `media.unpublished`) that `event` is, if it is one.
    nonisolated static func mediaEvent(_ event: StreamEvent) -> MediaEvent? {
        guard event.type == MediaEventType.published || event.type == MediaEventType.unpublished else { return nil }
        return try? event.data.decode(as: MediaEvent.self)
    }

    /// A media event of the room's stream.
    func handle(_ event: MediaEvent) {
        switch event.type {
        case MediaEventType.published:
            feeds[event.feed.feedId] = event.feed
            guard event.feed.participantId != participantId else { return }
            enqueue { session in try await session.subscribe([event.feed.feedId]) }
        case MediaEventType.unpublished:
            feeds[event.feed.feedId] = nil
            if event.reason == "mediaServerLost" {
                let lost = event.feed.feedId
                enqueue { session in try await session.recover(lost: lost) }
            } else if event.feed.feedId == localFeed?.feedId {
                // Gone without a word from this side (a mode change is handled by modeChanged;
                // a dropped connection by restart): publish again while allowed.
                enqueue { session in
                    await session.teardown(publishing: true, receiving: false)
                    if await session.canPublish, event.reason == "unpublished" { try await session.publish() }
                }
            } else {
                enqueue { session in try await session.unsubscribe(event.feed.feedId) }
            }
        default:
            break
        }
    }

    /// The local participant's mode changed: publish or stop, receive or stop.
    func modeChanged(_ mode: Mode) {
        allow(publish: mode == .SEND_AND_RECV, receive: mode != .SIGNALLING_ONLY)
    }

    /// What the local participant may do changed (a mode, a live event becoming ready).
    func allow(publish: Bool, receive: Bool) {
        guard publish != canPublish || receive != canReceive || (publish && !isPublishing) else { return }
        canPublish = publish
        canReceive = receive
        enqueue { session in
            let (publish, receive) = await (session.canPublish, session.canReceive)
            await session.teardown(publishing: !publish, receiving: !receive)
            if publish { try await session.publish() }
            if receive { try await session.receiveAll() }
        }
    }

    /// The media server was lost: every session is gone, and each feed of the room is announced
    /// gone with `mediaServerLost`, one event each. The first event that names a feed of this
    /// session's connections (its own, or one it receives) drops them; the own feed's event
    /// publishes again once the server answers. A later event that names a feed already
    /// dropped does nothing: publishing again for each of the room's feeds would renegotiate
    /// the new feed with a fresh connection's offer, which the media server cannot connect.
    private func recover(lost feedId: UInt64) async throws {
        let ownLost = localFeed?.feedId == feedId
        guard ownLost || subscribed.contains(feedId) else { return }
        await teardown(publishing: ownLost, receiving: true)
        guard ownLost, canPublish else { return }
        while canPublish {
            do {
                try await publish()
                return
            } catch let error as GreenroomError where error.errorCode == .unavailable {
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}
