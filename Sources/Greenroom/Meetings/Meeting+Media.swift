import Foundation

extension Meeting {
    /// Sends and receives the meeting's audio and video through `engine` (the app's WebRTC
    /// stack) once joined: publishes the local tracks while the local participant is
    /// `SEND_AND_RECV`, receives every other participant's feed unless it is
    /// `SIGNALLING_ONLY`, and follows feeds, mode changes and the media server's restarts by
    /// itself; leaving or the meeting's end stops it (the engine's connections are closed).
    /// A microphone or camera turned off (at join, or with ``muteMic()`` / ``disableWebcam()``)
    /// is not sent.
    /// Needs a server with media (`greenroom serve --media`).
    ///
    /// ```swift
    /// try await meeting.join()
    /// let media = await meeting.attachMedia(MyWebRTCEngine())
    /// let tracks = await media.tracks    // mid → the feed (participant) it comes from
    /// ```
    @discardableResult
    public func attachMedia(_ engine: any MediaEngine) async -> MediaSession {
        let local = localParticipant
        let args = joinArgs.withLock { $0 }
        // Joined (or since set) with the microphone or camera off: published without it.
        let muted = Set([args.micEnabled == false ? MediaKind.audio : nil, args.webcamEnabled == false ? .video : nil].compactMap { $0 })
        let session = MediaSession(client: client, stream: StreamKind.meeting.stream(id), participantId: local.id, engine: engine,
                                   canPublish: local.mode == .SEND_AND_RECV, canReceive: local.mode != .SIGNALLING_ONLY, muted: muted)
        let previous = state.withLock { state -> MediaSession? in
            defer { state.media = session }
            return state.media
        }
        await previous?.stop()
        await session.start()
        return session
    }

    /// The media session attached with ``attachMedia(_:)``, if any.
    public var media: MediaSession? { state.withLock { $0.media } }
}
