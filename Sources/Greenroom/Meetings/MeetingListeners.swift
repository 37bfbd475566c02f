import Foundation

/// Where the local participant's meeting connection is.
public enum MeetingState: String, Sendable, Hashable {
    /// Joining.
    case CONNECTING
    /// In the meeting.
    case CONNECTED
    /// Leaving.
    case CLOSING
    /// Left, or the meeting ended.
    case CLOSED
    /// Not let in (a moderator refused, or joining failed).
    case CANCELLED
    /// The connection dropped; coming back.
    case RECONNECTING
}

/// Told of a meeting's changes, on the main actor. Every method is optional.
@MainActor
public protocol MeetingEventListener: AnyObject, Sendable {
    /// The local participant joined.
    func onMeetingJoined()
    /// The local participant left (or was put out).
    func onMeetingLeft()
    /// Someone joined.
    func onParticipantJoined(_ participant: Participant)
    /// Someone left.
    func onParticipantLeft(_ participant: Participant)
    /// The local connection to the meeting changed state.
    func onMeetingStateChanged(meetingState: MeetingState)
    /// A call failed, or the local participant was put out.
    func onError(error: GreenroomError)
    /// A participant's pins changed (`pinType` is `nil` when nothing of it is pinned now).
    func onPinStateChanged(participantId: String, pinType: PinType?)
    /// A participant changed its mode.
    func onParticipantModeChanged(participantId: String, mode: Mode)
    /// Someone asks to join (moderators only); answer with ``Meeting/respondToEntry(participantId:allow:)``.
    func onEntryRequested(participantId: String, name: String)
    /// A moderator answered the local participant's request to join (a token with
    /// `ask_join`): `decision` is `allowed` (the join then completes) or `denied` (it then
    /// throws `entryDenied`).
    func onEntryResponded(participantId: String, decision: String)
    /// The active speaker changed, by the audio levels the media server measures (the one
    /// who started talking last among those talking); `nil` when nobody talks.
    func onSpeakerChanged(participantId: String?)
    /// The meeting's livestream changed state (VideoSDK's callback): starting, started,
    /// stopping, stopped. ``Meeting/livestream`` has its playlist and who is on it.
    func onLivestreamStateChanged(state: LivestreamStatus)
    /// The meeting's recording changed state (VideoSDK's callback): starting, started,
    /// stopping, stopped. ``Meeting/recording`` has, once stopped, the video it became.
    func onRecordingStateChanged(state: RecordingStatus)
    /// The meeting's participant count changed (``Meeting/participantCount``): at most once a
    /// second, with every participant counted, listed in ``Meeting/participants`` or not.
    func onParticipantCountChanged(count: Int)
    /// A participant's connection quality changed (the local one's too): `excellent`,
    /// `good`, `poor` or `lost`, rated by the server from what each participant's media
    /// engine measures and from the media server's own signs, at most once every two seconds
    /// per participant. ``Participant/connectionQuality`` has it.
    func onConnectionQualityChanged(participantId: String, quality: ConnectionQuality)
}

extension MeetingEventListener {
    /// Does nothing by default.
    public func onConnectionQualityChanged(participantId: String, quality: ConnectionQuality) {}
    /// Does nothing by default.
    public func onLivestreamStateChanged(state: LivestreamStatus) {}
    /// Does nothing by default.
    public func onRecordingStateChanged(state: RecordingStatus) {}
    /// Does nothing.
    public func onParticipantCountChanged(count: Int) {}
    /// Does nothing by default.
    public func onMeetingJoined() {}
    /// Does nothing by default.
    public func onMeetingLeft() {}
    /// Does nothing by default.
    public func onParticipantJoined(_ participant: Participant) {}
    /// Does nothing by default.
    public func onParticipantLeft(_ participant: Participant) {}
    /// Does nothing by default.
    public func onMeetingStateChanged(meetingState: MeetingState) {}
    /// Does nothing by default.
    public func onError(error: GreenroomError) {}
    /// Does nothing by default.
    public func onPinStateChanged(participantId: String, pinType: PinType?) {}
    /// Does nothing by default.
    public func onParticipantModeChanged(participantId: String, mode: Mode) {}
    /// Does nothing by default.
    public func onEntryRequested(participantId: String, name: String) {}
    /// Does nothing by default.
    public func onEntryResponded(participantId: String, decision: String) {}
    /// Does nothing by default.
    public func onSpeakerChanged(participantId: String?) {}
}

/// A participant's media stream, as reported to ``ParticipantEventListener`` and listed by
/// ``Participant/streams()`` (the seeds' `participant.streams`).
public struct MediaStream: Sendable, Hashable {
    /// Audio, video or share.
    public var kind: MediaKind
    /// The `mid` that names its track in your ``MediaEngine``'s connections (the sending one
    /// for the local participant, the receiving one for everyone else); `nil` in the
    /// listeners' events, which follow the participant's state rather than a track.
    public var mid: String? = nil
    /// The feed the track belongs to, with ``mid``.
    public var feedId: UInt64? = nil
}

/// Told of one participant's streams, on the main actor. Every method is optional.
@MainActor
public protocol ParticipantEventListener: AnyObject, Sendable {
    /// A stream of the participant was turned on.
    func onStreamEnabled(_ stream: MediaStream, forParticipant participant: Participant)
    /// A stream of the participant was turned off.
    func onStreamDisabled(_ stream: MediaStream, forParticipant participant: Participant)
}

extension ParticipantEventListener {
    /// Does nothing by default.
    public func onStreamEnabled(_ stream: MediaStream, forParticipant participant: Participant) {}
    /// Does nothing by default.
    public func onStreamDisabled(_ stream: MediaStream, forParticipant participant: Participant) {}
}

/// Receives the pub/sub messages of the topics it subscribed to, on the main actor.
@MainActor
public protocol PubSubMessageListener: AnyObject, Sendable {
    /// A message arrived (persisted ones first, on subscribing).
    func onMessageReceived(_ message: PubSubMessage)
}

/// A listener held weakly.
struct WeakListener: Sendable {
    weak var object: (any AnyObject & Sendable)?

    init(_ object: any AnyObject & Sendable) { self.object = object }

    /// The listener, while it lives, as the protocol it was added as.
    func get<Listener>(_ type: Listener.Type) -> Listener? { object as? Listener }
}
