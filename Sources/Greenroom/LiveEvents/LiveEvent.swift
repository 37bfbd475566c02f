import Foundation
import GreenroomProtocol

/// A live event, kept current with its events once entered (as a participant or a host).
///
/// ```swift
/// let params = LiveEvent.CreateParams()
/// params.title = "Launch"
/// params.customItems = ["sku": "A-1"]
/// let liveEvent = try await client.createLiveEvent(config: params)
/// try await liveEvent.enterAsHost(options: MediaOptions())
/// try await liveEvent.setEventReady()
/// try await liveEvent.startEvent(mediaOptions: nil)
/// liveEvent.updateCustomItems(customItems: ["price": "20"]) { customItems, updatedKeys, error in … }
/// ```
public final class LiveEvent: Sendable {
    /// The parameters of a new live event. Everything is optional; `customItems` is empty by default.
    public final class CreateParams: Sendable {
        private struct Values {
            var type: LiveEventType = .video
            var title: String?
            var coverURL: String?
            var userIdsForHost: [String] = []
            var reactionKeys: [String] = []
            var customItems: [String: String] = [:]
        }

        private let values = Locked(Values())

        /// Makes empty parameters.
        public init() {}

        /// Video (the default) or audio only.
        public var type: LiveEventType {
            get { values.withLock { $0.type } }
            set { values.withLock { $0.type = newValue } }
        }
        /// The title.
        public var title: String? {
            get { values.withLock { $0.title } }
            set { values.withLock { $0.title = newValue } }
        }
        /// The cover picture.
        public var coverURL: String? {
            get { values.withLock { $0.coverURL } }
            set { values.withLock { $0.coverURL = newValue } }
        }
        /// The users who may enter as hosts; the creator when empty.
        public var userIdsForHost: [String] {
            get { values.withLock { $0.userIdsForHost } }
            set { values.withLock { $0.userIdsForHost = newValue } }
        }
        /// The reactions participants may send.
        public var reactionKeys: [String] {
            get { values.withLock { $0.reactionKeys } }
            set { values.withLock { $0.reactionKeys = newValue } }
        }
        /// The custom items to start with.
        public var customItems: [String: String] {
            get { values.withLock { $0.customItems } }
            set { values.withLock { $0.customItems = newValue } }
        }

        var args: LiveEventCreateArgs {
            values.withLock { values in
                LiveEventCreateArgs(type: values.type, title: values.title, coverURL: values.coverURL,
                                    userIdsForHost: values.userIdsForHost.isEmpty ? nil : values.userIdsForHost,
                                    reactionKeys: values.reactionKeys, customItems: values.customItems)
            }
        }
    }

    /// How the local user is inside.
    enum Role: Sendable {
        case participant
        case host(MediaOptions)
    }

    struct State {
        var data: LiveEventData
        var role: Role?
        var position: StreamPosition?
        var pump: EventPump?
        var watcher: ReconnectWatcher?
        var delegates: [String: WeakLiveEventDelegate] = [:]
        /// Audio and video, once attached.
        var media: MediaSession?
        /// Each user's connection quality, as last rated, by user id.
        var qualities: [String: ConnectionQuality] = [:]
    }

    /// The client this event acts through.
    public let client: GreenroomClient
    let store: Locked<State>
    /// The streams ``events`` handed out.
    let changes = ChangeStreams<LiveEventChange>()

    init(_ data: LiveEventData, client: GreenroomClient) {
        self.client = client
        self.store = Locked(State(data: data))
    }

    deinit {
        let (pump, watcher) = store.withLock { ($0.pump, $0.watcher) }
        pump?.cancel()
        watcher?.cancel()
        changes.finish()
    }

    /// How well a host's (or any user's with media here) media gets through, as the server
    /// last rated it; `nil` until rated (see
    /// ``LiveEventDelegate/didConnectionQualityChange(_:userId:quality:)``).
    public func connectionQuality(of userId: String) -> ConnectionQuality? {
        store.withLock { $0.qualities[userId] }
    }

    /// Everything the server told about the event, as last heard.
    public var data: LiveEventData { store.withLock { $0.data } }
    /// The event's id.
    public var liveEventId: String { data.liveEventId }
    /// Video or audio only.
    public var type: LiveEventType { data.type }
    /// The title.
    public var title: String? { data.title }
    /// Its HLS livestream while it is `ongoing` (on servers with media and ffmpeg): every
    /// publishing host side by side, for viewers who watch rather than take part.
    public var livestream: LivestreamInfo? { data.livestream }
    /// Its recording as last announced (the one going on, or the last one with the video it
    /// became), or `nil` when none was started.
    public var recording: RecordingInfo? { data.recording }
    /// The cover picture.
    public var coverURL: String? { data.coverURL }
    /// Where it is in its life.
    public var state: LiveEventState { data.state }
    /// The users who may enter as hosts.
    public var userIdsForHost: [String] { data.userIdsForHost }
    /// The hosts inside.
    public var hosts: [LiveEventHost] { data.hosts }
    /// Participants inside (as last announced).
    public var participantCount: Int { data.participantCount }
    /// The most participants inside at once.
    public var peakParticipantCount: Int { data.peakParticipantCount }
    /// How many users entered at least once.
    public var cumulativeParticipantCount: Int { data.cumulativeParticipantCount }
    /// Who created the event, and when.
    public var createdBy: String { data.createdBy }
    /// When the event was created.
    public var createdAt: Date { data.createdAt }
    /// When it became ready.
    public var setReadyAt: Date? { data.setReadyAt }
    /// When it started.
    public var startedAt: Date? { data.startedAt }
    /// When it ended.
    public var endedAt: Date? { data.endedAt }
    /// Who ended it.
    public var endedBy: String? { data.endedBy }
    /// How long it has been live, in seconds.
    public var duration: TimeInterval { data.duration }
    /// The custom items.
    public var customItems: [String: String] { data.customItems }
    /// The reactions participants may send.
    public var reactionKeys: [String] { data.reactionKeys }
    /// How many of each reaction were sent.
    public var reactionCounts: [String: Int] { data.reactionCounts }
    /// Whether the local user is inside (as a participant or a host).
    public var isEntered: Bool { store.withLock { $0.role != nil } }

    // MARK: Being told of changes

    /// The event's changes from now on, in order: the same as the delegates are told, as
    /// values. Each access makes a new stream; several may be iterated at once.
    ///
    /// ```swift
    /// for await change in liveEvent.events {
    ///     if case .hostEntered(let host) = change { show(host) }
    /// }
    /// ```
    public var events: AsyncStream<LiveEventChange> { changes.makeStream() }

    /// Adds a delegate under `key` (replacing one under the same key). Held weakly.
    public func addDelegate(_ delegate: any LiveEventDelegate, forKey key: String) {
        store.withLock { $0.delegates[key] = WeakLiveEventDelegate(delegate) }
    }

    /// Removes the delegate under `key`.
    public func removeDelegate(forKey key: String) {
        store.withLock { _ = $0.delegates.removeValue(forKey: key) }
    }

    /// Tells `change` to the streams of ``events``, then to every delegate on the main actor.
    func notify(_ change: LiveEventChange) async {
        changes.yield(change)
        let delegates = store.withLock { $0.delegates.values.compactMap(\.delegate) }
        guard !delegates.isEmpty else { return }
        await MainActor.run { for delegate in delegates { delegate.tell(change, of: self) } }
    }

    /// Adopts the server's view, keeping the counts announced by count events when the
    /// snapshot's are older.
    func adopt(_ fresh: LiveEventData, countsIncluded: Bool) {
        store.withLock { state in
            var fresh = fresh
            if !countsIncluded {
                fresh.participantCount = state.data.participantCount
                fresh.peakParticipantCount = max(state.data.peakParticipantCount, fresh.peakParticipantCount)
                fresh.cumulativeParticipantCount = max(state.data.cumulativeParticipantCount, fresh.cumulativeParticipantCount)
                fresh.reactionCounts.merge(state.data.reactionCounts) { max($0, $1) }
            }
            // State events carry the event as stored; its livestream comes with its own events.
            if fresh.livestream == nil { fresh.livestream = state.data.livestream }
            if fresh.recording == nil { fresh.recording = state.data.recording }
            state.data = fresh
        }
    }
}

/// A delegate held weakly.
struct WeakLiveEventDelegate: Sendable {
    weak var delegate: (any LiveEventDelegate)?

    init(_ delegate: any LiveEventDelegate) { self.delegate = delegate }
}

/// A host's microphone and camera when entering or starting.
public struct MediaOptions: Sendable, Hashable {
    /// Whether the camera is on.
    public var turnVideoOn: Bool
    /// Whether the microphone is on.
    public var turnAudioOn: Bool

    /// Makes the options (both on by default).
    public init(turnVideoOn: Bool = true, turnAudioOn: Bool = true) {
        self.turnVideoOn = turnVideoOn
        self.turnAudioOn = turnAudioOn
    }
}
