import Foundation
import GreenroomProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Notification.Name {
    /// A video was created; userInfo `["video": Video]`.
    public static let GRVideoCreated = Notification.Name("GRVideoCreated")
    /// A video changed (typically: processing finished); userInfo `["videoID": String, "changes": [String: RawJSON]]`.
    public static let GRVideoUpdated = Notification.Name("GRVideoUpdated")
    /// A video was deleted; userInfo `["videoID": String]`.
    public static let GRVideoDeleted = Notification.Name("GRVideoDeleted")
    /// An upload progressed; userInfo `["videoID": String, "progress": Double]` (0…1).
    public static let GRVideoUploadProgress = Notification.Name("GRVideoUploadProgress")
    /// An upload finished; userInfo `["video": Video]`.
    public static let GRVideoUploadCompleted = Notification.Name("GRVideoUploadCompleted")
    /// The session's state changed; userInfo `["state": VideoSessionState]`.
    public static let GRSessionStateChanged = Notification.Name("GRSessionStateChanged")
}

/// The video type under the seed's prefix (VideoKit's `VKVideo`), so that a port changes
/// only the prefix.
public typealias GRVideo = Video

/// A change of the video feed, as posted to `NotificationCenter` and yielded by ``VideoSession/events``.
public enum VideoEvent: Sendable, Hashable {
    /// A video was created.
    case created(Video)
    /// A video changed: only the changed fields.
    case updated(videoID: String, changes: [String: RawJSON])
    /// A video was deleted.
    case deleted(videoID: String)
}

/// Where a video session is.
public enum VideoSessionState: Sendable, Hashable {
    /// Connecting (or reconnecting).
    case connecting
    /// Connected: notifications flow.
    case connected
    /// Stopped.
    case disconnected
    /// Stopped by an error (a refused token, say).
    case error(GreenroomError)
}

/// A video feed session for one identity: it connects by itself once started, announces
/// its state, and posts the feed's realtime notifications (`GRVideoCreated`,
/// `GRVideoUpdated`, `GRVideoDeleted`) with the
/// userInfo keys `"video"`, `"videoID"` and `"changes"`. Every notification is posted on the
/// main thread, so an observer may update views in it; the same events are an `AsyncStream`
/// (``events``) for code that wants them on another actor.
///
/// ```swift
/// let session = VideoSession(serverURL: URL(string: "http://127.0.0.1:8080")!)
/// try await session.start(token: token)     // scopes videos.read, videos.create, …
/// NotificationCenter.default.addObserver(self, selector: #selector(created(_:)), name: .GRVideoCreated, object: nil)
/// let upload = session.upload(fileURL: movie, title: "Trip")
/// for await fraction in upload.progress { print(fraction) }
/// ```
public final class VideoSession: Sendable {
    struct State {
        var pump: EventPump?
        var watcher: Task<Void, Never>?
        var state: VideoSessionState = .disconnected
    }

    /// The connection the session runs on.
    public let client: GreenroomClient
    /// Where notifications are posted (`.default` unless given).
    public let notificationCenter: NotificationCenter
    let state = Locked(State())
    /// The streams ``events`` handed out.
    let changes = ChangeStreams<VideoEvent>()

    /// Makes a session for the server at `serverURL`.
    public convenience init(serverURL: URL) {
        self.init(client: GreenroomClient(serverURL: serverURL))
    }

    /// Makes a session on a client (one WebSocket for everything).
    public init(client: GreenroomClient, notificationCenter: NotificationCenter = .default) {
        self.client = client
        self.notificationCenter = notificationCenter
    }

    /// The session's state.
    public var sessionState: VideoSessionState { state.withLock { $0.state } }

    /// The feed's events from now on. Each access makes a new stream.
    public var events: AsyncStream<VideoEvent> { changes.makeStream() }

    /// Starts the session: connects with `token` and follows the feed (needs `videos.read`).
    public func start(token: String, tokenProvider: TokenProvider? = nil) async throws {
        setState(.connecting)
        do {
            try await client.connect(token: token, tokenProvider: tokenProvider)
            // A session without `videos.read` uploads and edits, but has no feed to follow.
            var subscription: StreamSubscription?
            do {
                subscription = try await client.subscribe(to: VideoStream.name)
            } catch let error as GreenroomError where error.is(.permissionDenied) {
                subscription = nil
            }
            let pump = subscription.map { subscription in
                EventPump(following: subscription, for: self) { session, event in session.handle(event) }
            }
            let states = client.connectionStates
            let watcher = Task { [weak self] in
                for await connection in states {
                    switch connection {
                    case .connected: self?.setState(.connected)
                    case .connecting, .reconnecting: self?.setState(.connecting)
                    case .disconnected(let error): self?.setState(error.map(VideoSessionState.error) ?? .disconnected)
                    case .initialized: break
                    }
                }
            }
            state.withLock { state in
                state.pump = pump
                state.watcher = watcher
            }
            setState(.connected)
        } catch {
            setState(.error((error as? GreenroomError) ?? GreenroomError(.internalError, "\(error)")))
            throw error
        }
    }

    /// Stops the session.
    public func stop() async {
        let (pump, watcher) = state.withLock { ($0.pump, $0.watcher) }
        pump?.cancel()
        watcher?.cancel()
        await client.disconnect()
        setState(.disconnected)
    }

    private func setState(_ new: VideoSessionState) {
        let changed = state.withLock { state -> Bool in
            guard state.state != new else { return false }
            state.state = new
            return true
        }
        if changed { post(.GRSessionStateChanged) { ["state": new] } }
    }

    /// Posts a notification on the main thread, where UIKit and AppKit observers update
    /// their views (as the seed's do); notifications keep the order they were posted in.
    func post(_ name: Notification.Name, userInfo: @escaping @Sendable () -> [AnyHashable: Any]) {
        let center = notificationCenter
        DispatchQueue.main.async { center.post(name: name, object: self, userInfo: userInfo()) }
    }

    private func handle(_ event: StreamEvent) {
        let videoEvent: VideoEvent
        switch event.type {
        case VideoStream.created:
            guard let video = try? event.data["video"]?.decode(as: Video.self) else { return }
            videoEvent = .created(video)
            post(.GRVideoCreated) { ["video": video] }
        case VideoStream.updated:
            guard let id = event.data["videoId"]?.stringValue, let changes = event.data["changes"]?.dictionaryValue else { return }
            videoEvent = .updated(videoID: id, changes: changes)
            post(.GRVideoUpdated) { ["videoID": id, "changes": changes] }
        case VideoStream.deleted:
            guard let id = event.data["videoId"]?.stringValue else { return }
            videoEvent = .deleted(videoID: id)
            post(.GRVideoDeleted) { ["videoID": id] }
        default:
            return
        }
        changes.yield(videoEvent)
    }

    // MARK: REST

    /// Sends an authenticated request to the server; throws the server's error on failure.
    func request(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, headers: [String: String] = [:]) async throws -> (Data, Int) {
        guard client.currentToken != nil else { throw GreenroomError(.notConnected, "start the session first") }
        return try await client.restRequest(method, path, query: query, body: body, headers: headers)
    }

    func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try WireCoding.decode(type, from: data)
    }

    /// Reads one video.
    public func video(id: String) async throws -> Video {
        try decode(Video.self, try await request("GET", "/v1/videos/\(id)").0)
    }

    /// A page of the feed (newest first unless `oldestFirst`), filtered by owner, status and tag.
    ///
    /// With a local store, the first page of each query is kept there and answers at once
    /// while the client is not connected.
    public func videos(owner: String? = nil, status: VideoStatus? = nil, tag: String? = nil, oldestFirst: Bool = false,
                       limit: Int = 20, cursor: String? = nil) async throws -> VideoPage {
        let key = "videos?owner=\(owner ?? "")&status=\(status?.rawValue ?? "")&tag=\(tag ?? "")&oldest=\(oldestFirst)&limit=\(limit)"
        return try await client.firstPage(key, cursor: cursor) {
            try await fetchVideos(owner: owner, status: status, tag: tag, oldestFirst: oldestFirst, limit: limit, cursor: cursor)
        }
    }

    private func fetchVideos(owner: String?, status: VideoStatus?, tag: String?, oldestFirst: Bool, limit: Int, cursor: String?) async throws -> VideoPage {
        var query = [URLQueryItem(name: "limit", value: String(limit))]
        if let owner { query.append(URLQueryItem(name: "owner", value: owner)) }
        if let status { query.append(URLQueryItem(name: "status", value: status.rawValue)) }
        if let tag { query.append(URLQueryItem(name: "tag", value: tag)) }
        if oldestFirst { query.append(URLQueryItem(name: "sort", value: "oldest")) }
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        return try decode(VideoPage.self, try await request("GET", "/v1/videos", query: query).0)
    }

    /// Changes a video's title, tags or extra data (its owner, with `videos.edit`).
    @discardableResult
    public func updateVideo(id: String, title: String? = nil, tags: [String]? = nil, extraData: [String: RawJSON]? = nil) async throws -> Video {
        let body = try WireCoding.encode(VideoUpdateArgs(title: title, tags: tags, extraData: extraData))
        return try decode(Video.self, try await request("PATCH", "/v1/videos/\(id)", body: body).0)
    }

    /// Deletes a video and its files (its owner, with `videos.delete`).
    public func deleteVideo(id: String) async throws {
        _ = try await request("DELETE", "/v1/videos/\(id)")
    }

    /// Reads a video's file (or a byte range of it: `range` as in `bytes=0-99`).
    public func download(videoID: String, thumbnail: Bool = false, range: String? = nil) async throws -> (data: Data, status: Int) {
        try await request("GET", "/v1/videos/\(videoID)/\(thumbnail ? "thumbnail" : "file")", headers: range.map { ["Range": $0] } ?? [:])
    }

    /// The URL a player plays `video` from: its HLS master playlist (H.264 and AAC renditions,
    /// whatever was uploaded), with a token in the query, since a player cannot set an
    /// `Authorization` header. The token is good for this video's files alone and for a
    /// while (an hour, or twice the video's length and ten minutes, at most 12 hours), never
    /// the session's own; the playlists the player fetches carry such tokens on. `nil` until
    /// the video is encoded (`status == .ready`).
    ///
    /// ```swift
    /// if let url = try await session.playbackURL(for: video) { player.replaceCurrentItem(with: AVPlayerItem(url: url)) }
    /// ```
    public func playbackURL(for video: GRVideo) async throws -> URL? {
        guard let path = video.hlsURL else { return nil }
        return try await client.resourceURL(path: path, scope: ResourceTokenArgs.video(video.id), ttl: Self.tokenLifetime(video))
    }

    /// The URL of `video`'s uploaded file (or its thumbnail) with a token for this video's
    /// files alone in the query, for a view that cannot set headers (an image view, a
    /// download). `nil` while it has none.
    public func fileURL(for video: GRVideo, thumbnail: Bool = false) async throws -> URL? {
        guard let path = thumbnail ? video.thumbnailURL : video.playbackURL else { return nil }
        return try await client.resourceURL(path: path, scope: ResourceTokenArgs.video(video.id), ttl: Self.tokenLifetime(video))
    }

    /// How long a video's resource token lives: long enough to play it through twice.
    static func tokenLifetime(_ video: GRVideo) -> Double {
        guard let duration = video.duration, duration.isFinite, duration > 0 else { return 3_600 }
        return min(max(3_600, 600 + duration * 2), 43_200)
    }
}

extension GreenroomClient {
    /// The server's URL for `path` with a token good under `scope` alone as `?token=`
    /// (``ResourceTokenOperation``), for a player that cannot set headers.
    func resourceURL(path: String, scope: String, ttl: Double? = nil) async throws -> URL {
        let issued = try await send(ResourceTokenOperation.issue, args: ResourceTokenArgs(scope: scope, ttl: ttl))
        guard var components = URLComponents(url: configuration.httpURL(path, on: configuration.serverURL), resolvingAgainstBaseURL: false) else {
            throw GreenroomError(.invalidParameterValue, "\(path) is not a path on the server")
        }
        components.queryItems = [URLQueryItem(name: "token", value: issued.token)]
        guard let url = components.url else { throw GreenroomError(.invalidParameterValue, "\(path) is not a path on the server") }
        return url
    }
}
