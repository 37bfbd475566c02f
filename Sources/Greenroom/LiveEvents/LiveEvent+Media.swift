import Foundation

extension LiveEvent {
    /// Sends and receives the event's audio and video through `engine` (the app's WebRTC
    /// stack) once entered: a host publishes its camera and microphone while the event is
    /// `ready` (a preview) or `ongoing` — from the moment it becomes ready when attached
    /// before — and everyone inside receives the hosts. Exiting stops it; after a reconnect
    /// it starts again by itself. See ``MediaEngine``.
    @discardableResult
    public func attachMedia(_ engine: any MediaEngine) async -> MediaSession {
        let session = MediaSession(client: client, stream: StreamKind.live.stream(liveEventId), participantId: client.currentUserId ?? "",
                                   engine: engine, canPublish: mayPublish, canReceive: true)
        let previous = store.withLock { state -> MediaSession? in
            defer { state.media = session }
            return state.media
        }
        await previous?.stop()
        await session.start()
        return session
    }

    /// The media session attached with ``attachMedia(_:)``, if any.
    public var media: MediaSession? { store.withLock { $0.media } }

    /// Whether the local user is a host inside while the event is ready or ongoing.
    var mayPublish: Bool {
        store.withLock { state in
            guard case .host = state.role else { return false }
            return state.data.state == .ready || state.data.state == .ongoing
        }
    }
}
