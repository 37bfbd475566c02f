import Foundation

/// The meeting operations. Each is documented with its arguments and result in `docs/PROTOCOL.md`.
public enum MeetingOperation {
    /// ``MeetingJoinArgs`` → ``MeetingJoinResult``.
    public static let join = WireOperation<MeetingJoinArgs, MeetingJoinResult>("meeting.join")
    /// ``MeetingRef`` → ``EmptyResult``.
    public static let leave = WireOperation<MeetingRef, EmptyResult>("meeting.leave")
    /// ``MeetingRef`` → ``EmptyResult``: moderators only.
    public static let end = WireOperation<MeetingRef, EmptyResult>("meeting.end")
    /// ``MeetingRef`` → ``MeetingData``: participants and moderators.
    public static let get = WireOperation<MeetingRef, MeetingData>("meeting.get")
    /// ``MeetingModeArgs`` → ``MeetingParticipant``: the caller's own mode.
    public static let changeMode = WireOperation<MeetingModeArgs, MeetingParticipant>("meeting.changeMode")
    /// ``MeetingMediaArgs`` → ``MeetingParticipant``: the caller's microphone and camera.
    public static let setMedia = WireOperation<MeetingMediaArgs, MeetingParticipant>("meeting.setMedia")
    /// ``MeetingPinArgs`` → ``PinState``.
    public static let pin = WireOperation<MeetingPinArgs, PinState>("meeting.pin")
    /// ``MeetingPinArgs`` → ``PinState``.
    public static let unpin = WireOperation<MeetingPinArgs, PinState>("meeting.unpin")
    /// ``MeetingEntryArgs`` → ``EmptyResult``: moderators only.
    public static let respondEntry = WireOperation<MeetingEntryArgs, EmptyResult>("meeting.respondEntry")
    /// ``MeetingRef`` → ``LivestreamInfo``: moderators only. Starts the meeting's HLS
    /// livestream (the pinned participants, or every publisher); starting one that runs
    /// answers its state. Refused with `livestreamLimitReached` when the node runs as many as
    /// it may, `unavailable` without media or ffmpeg.
    public static let startLivestream = WireOperation<MeetingRef, LivestreamInfo>("meeting.startLivestream")
    /// ``MeetingRef`` → ``LivestreamInfo``: moderators only. Stops the livestream and removes
    /// its files; stopping one that does not run answers `LIVESTREAM_STOPPED`.
    public static let stopLivestream = WireOperation<MeetingRef, LivestreamInfo>("meeting.stopLivestream")
    /// ``MeetingRef`` → ``RecordingInfo``: moderators only. Starts recording the stage's
    /// composed picture and mixed audio (the livestream's layout; the livestream is started
    /// for it when it does not run); starting one that records answers its state. Refused with
    /// `meetingEnded`, `alreadyExists` while the last one is still being made into a video,
    /// `livestreamLimitReached` or `unavailable` as the livestream is.
    public static let startRecording = WireOperation<MeetingRef, RecordingInfo>("meeting.startRecording")
    /// ``MeetingRef`` → ``RecordingInfo``: moderators only. Stops the recording: it becomes a
    /// video in the feed, owned by the moderator who started it; stopping when none records
    /// answers the last one's state.
    public static let stopRecording = WireOperation<MeetingRef, RecordingInfo>("meeting.stopRecording")
    /// ``PubSubPublishArgs`` → ``PubSubMessage``.
    public static let publish = WireOperation<PubSubPublishArgs, PubSubMessage>("pubsub.publish")
    /// ``PubSubTopicArgs`` → `[PubSubMessage]`: a page of the topic's persisted messages the
    /// caller may see, oldest first.
    public static let messages = WireOperation<PubSubTopicArgs, [PubSubMessage]>("pubsub.messages")
}

/// Names a meeting.
public struct MeetingRef: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String

    /// Makes the reference.
    public init(meetingId: String) { self.meetingId = meetingId }
}

/// The arguments of `meeting.join`.
public struct MeetingJoinArgs: Codable, Sendable, Hashable {
    /// The meeting (created on first join when it does not exist).
    public var meetingId: String
    /// The participant's id; the same id joining again replaces the older connection.
    public var participantId: String
    /// The name shown to others.
    public var name: String
    /// How it takes part.
    public var mode: Mode
    /// The app's own data about it (at most 5 KB).
    public var metaData: [String: RawJSON]?
    /// Microphone on (only in `SEND_AND_RECV`).
    public var micEnabled: Bool?
    /// Camera on (only in `SEND_AND_RECV`).
    public var webcamEnabled: Bool?

    /// Makes the arguments.
    public init(meetingId: String, participantId: String, name: String, mode: Mode, metaData: [String: RawJSON]? = nil,
                micEnabled: Bool? = nil, webcamEnabled: Bool? = nil) {
        self.meetingId = meetingId
        self.participantId = participantId
        self.name = name
        self.mode = mode
        self.metaData = metaData
        self.micEnabled = micEnabled
        self.webcamEnabled = webcamEnabled
    }
}

/// What joining returns.
public struct MeetingJoinResult: Codable, Sendable, Hashable {
    /// `joined`, or `waiting` for a moderator to admit the caller (tokens with `ask_join`):
    /// the answer comes as `meeting.entryResponded` on the caller's private stream.
    public var status: Status
    /// The meeting as it is now (when joined).
    public var meeting: MeetingData?
    /// The position of the meeting's stream that state includes (when joined).
    public var position: StreamPosition?
    /// The id of the caller's connection, as events name it.
    public var clientId: String

    /// Whether the caller is in.
    public enum Status: String, Codable, Sendable, Hashable {
        /// In the meeting.
        case joined
        /// Waiting for a moderator.
        case waiting
    }

    /// Makes the result.
    public init(status: Status, meeting: MeetingData?, position: StreamPosition?, clientId: String) {
        self.status = status
        self.meeting = meeting
        self.position = position
        self.clientId = clientId
    }
}

/// The arguments of `meeting.changeMode`.
public struct MeetingModeArgs: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String
    /// The new mode.
    public var mode: Mode

    /// Makes the arguments.
    public init(meetingId: String, mode: Mode) {
        self.meetingId = meetingId
        self.mode = mode
    }
}

/// The arguments of `meeting.setMedia`: what is given changes.
public struct MeetingMediaArgs: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String
    /// Microphone on or off.
    public var micOn: Bool?
    /// Camera on or off.
    public var webcamOn: Bool?

    /// Makes the arguments.
    public init(meetingId: String, micOn: Bool? = nil, webcamOn: Bool? = nil) {
        self.meetingId = meetingId
        self.micOn = micOn
        self.webcamOn = webcamOn
    }
}

/// The arguments of `meeting.pin` and `meeting.unpin`.
public struct MeetingPinArgs: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String
    /// The participant to pin or unpin.
    public var participantId: String
    /// What to pin or unpin.
    public var pinType: PinType

    /// Makes the arguments.
    public init(meetingId: String, participantId: String, pinType: PinType) {
        self.meetingId = meetingId
        self.participantId = participantId
        self.pinType = pinType
    }
}

/// The arguments of `meeting.respondEntry`.
public struct MeetingEntryArgs: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String
    /// The participant asking to join.
    public var participantId: String
    /// Let it in, or not.
    public var allow: Bool

    /// Makes the arguments.
    public init(meetingId: String, participantId: String, allow: Bool) {
        self.meetingId = meetingId
        self.participantId = participantId
        self.allow = allow
    }
}

/// The arguments of `pubsub.publish`.
public struct PubSubPublishArgs: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String
    /// The topic, 1–128 characters.
    public var topic: String
    /// The text, at most 4 KiB.
    public var message: String
    /// The app's own data, at most 16 KiB of JSON.
    public var payload: [String: RawJSON]?
    /// `persist` and `sendOnly`.
    public var options: PubSubPublishOptions?

    /// Makes the arguments.
    public init(meetingId: String, topic: String, message: String, payload: [String: RawJSON]? = nil, options: PubSubPublishOptions? = nil) {
        self.meetingId = meetingId
        self.topic = topic
        self.message = message
        self.payload = payload
        self.options = options
    }
}

/// The arguments of `pubsub.messages`.
public struct PubSubTopicArgs: Codable, Sendable, Hashable {
    /// The meeting.
    public var meetingId: String
    /// The topic.
    public var topic: String
    /// Only the messages after this one (a message id the previous page ended with).
    public var after: String?
    /// The most messages to return: 1–100, 100 when not given. A shorter page is the last.
    public var limit: Int?

    /// Makes the arguments.
    public init(meetingId: String, topic: String, after: String? = nil, limit: Int? = nil) {
        self.meetingId = meetingId
        self.topic = topic
        self.after = after
        self.limit = limit
    }
}

/// The token grants of meetings.
public enum MeetingGrant {
    /// May join without being admitted (the default for tokens without meeting grants).
    public static let allowJoin = "allow_join"
    /// A moderator: may admit, end the meeting, and joins without being admitted.
    public static let allowMod = "allow_mod"
    /// Must be admitted by a moderator before joining.
    public static let askJoin = "ask_join"
}

extension Limits {
    /// The longest pub/sub topic.
    public static let maxTopicLength = 128
    /// The largest pub/sub message text, in bytes.
    public static let maxPubSubMessageBytes = 4 * 1024
    /// The largest pub/sub payload, in bytes of JSON.
    public static let maxPubSubPayloadBytes = 16 * 1024
}
