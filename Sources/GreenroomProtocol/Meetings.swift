import Foundation

/// How a participant takes part in a meeting.
public enum Mode: String, Codable, Sendable, Hashable, CaseIterable {
    /// Sends and receives media.
    case SEND_AND_RECV
    /// Neither sends nor receives media; uses pub/sub and chat.
    case SIGNALLING_ONLY
    /// Receives media only.
    case RECV_ONLY

    /// The old name of ``SEND_AND_RECV``.
    @available(*, deprecated, renamed: "SEND_AND_RECV")
    public static let CONFERENCE = Mode.SEND_AND_RECV
    /// The old name of ``SIGNALLING_ONLY``.
    @available(*, deprecated, renamed: "SIGNALLING_ONLY")
    public static let VIEWER = Mode.SIGNALLING_ONLY
}

/// What a pin covers. Pins are meeting-wide and additive.
public enum PinType: String, Codable, Sendable, Hashable {
    /// Both the camera and the screen share.
    case SHARE_AND_CAM
    /// The camera.
    case CAM
    /// The screen share.
    case SHARE
}

/// Which of a participant's streams are pinned.
public struct PinState: Codable, Sendable, Hashable {
    /// The camera is pinned.
    public var cam: Bool
    /// The screen share is pinned.
    public var share: Bool

    /// Makes a pin state.
    public init(cam: Bool = false, share: Bool = false) {
        self.cam = cam
        self.share = share
    }

    /// Whether anything is pinned.
    public var isPinned: Bool { cam || share }

    /// Adds (`on`) or removes the streams `type` covers.
    public mutating func apply(_ type: PinType, on: Bool) {
        if type != .SHARE { cam = on }
        if type != .CAM { share = on }
    }
}

/// A participant's media kinds, for stream enabled/disabled events.
public enum MediaKind: String, Codable, Sendable, Hashable {
    /// The microphone.
    case audio
    /// The camera.
    case video
    /// The screen share.
    case share
}

/// A participant of a meeting, as the server has it: who, how, and the state of its media,
/// which a media server can follow.
public struct MeetingParticipant: Codable, Sendable, Hashable {
    /// The participant's id (chosen by the app; one connection at a time).
    public var participantId: String
    /// The user behind it.
    public var userId: String
    /// The name shown to others.
    public var name: String
    /// How it takes part.
    public var mode: Mode
    /// The app's own data about it.
    public var metaData: [String: RawJSON]
    /// Whether its microphone is on.
    public var micOn: Bool
    /// Whether its camera is on.
    public var webcamOn: Bool
    /// Whether it is a moderator (its token has `allow_mod`).
    public var isModerator: Bool
    /// `joined`, or `reconnecting` while its connection is gone (within the grace period).
    public var state: State
    /// When it joined.
    public var joinedAt: Date

    /// Whether a participant's connection is there.
    public enum State: String, Codable, Sendable, Hashable {
        /// Connected.
        case joined
        /// Its connection dropped; it has left unless it comes back within the grace period.
        case reconnecting
    }

    /// Makes a participant.
    public init(participantId: String, userId: String, name: String, mode: Mode, metaData: [String: RawJSON] = [:],
                micOn: Bool, webcamOn: Bool, isModerator: Bool = false, state: State = .joined, joinedAt: Date) {
        self.participantId = participantId
        self.userId = userId
        self.name = name
        self.mode = mode
        self.metaData = metaData
        self.micOn = micOn
        self.webcamOn = webcamOn
        self.isModerator = isModerator
        self.state = state
        self.joinedAt = joinedAt
    }
}

/// A meeting as the server has it.
public struct MeetingData: Codable, Sendable, Hashable {
    /// The meeting's id.
    public var meetingId: String
    /// `active` or `ended`.
    public var state: State
    /// Who created it (a user, or `backend`).
    public var createdBy: String
    /// When it was created.
    public var createdAt: Date
    /// When it ended.
    public var endedAt: Date?
    /// Its participants, by join time: all of them for a moderator, a `SEND_AND_RECV`
    /// participant and the app's backend; for everyone else the participants on stage (those
    /// who joined or were since `SEND_AND_RECV`, and moderators) and the reader's own, so that
    /// joining a meeting of 10,000 viewers reads no list of 10,000.
    public var participants: [MeetingParticipant]
    /// How many participants the meeting has, listed or not; `nil` from servers before it.
    public var participantCount: Int?
    /// The pinned participants and what of them is pinned.
    public var pins: [String: PinState]
    /// Its HLS livestream, once one was started.
    public var livestream: LivestreamInfo?
    /// Its recording, once one was started: the one going on, or the last one.
    public var recording: RecordingInfo?

    /// Whether a meeting is going on.
    public enum State: String, Codable, Sendable, Hashable {
        /// Going on.
        case active
        /// Ended by a moderator; nobody may join.
        case ended
    }

    /// Makes a meeting.
    public init(meetingId: String, state: State, createdBy: String, createdAt: Date, endedAt: Date? = nil,
                participants: [MeetingParticipant] = [], pins: [String: PinState] = [:]) {
        self.meetingId = meetingId
        self.state = state
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.participants = participants
        self.pins = pins
    }

    /// The meeting's stream, `meeting:ID`.
    public var stream: String { StreamKind.meeting.stream(meetingId) }
}

/// A pub/sub message of a meeting.
public struct PubSubMessage: Codable, Sendable, Hashable, Identifiable {
    /// The message's id.
    public var id: String
    /// Its topic.
    public var topic: String
    /// Its text (at most 4 KiB).
    public var message: String
    /// The sending participant.
    public var senderId: String
    /// The sending participant's name.
    public var senderName: String
    /// When it was sent.
    public var timestamp: Date
    /// The app's own data (at most 16 KiB of JSON), read as the vendor's `[String: Any]`
    /// (`payload["receiverId"] as? String`) or as JSON (`payload["receiverId"]?.stringValue`).
    public var payload: PubSubPayload

    /// Makes a message.
    public init(id: String, topic: String, message: String, senderId: String, senderName: String, timestamp: Date, payload: [String: RawJSON] = [:]) {
        self.id = id
        self.topic = topic
        self.message = message
        self.senderId = senderId
        self.senderName = senderName
        self.timestamp = timestamp
        self.payload = PubSubPayload(payload)
    }
}

/// How a pub/sub message is published: `[:]`, or `["persist": true, "sendOnly": ["p1"]]`.
public struct PubSubPublishOptions: Codable, Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Keep it for the meeting's life: later subscribers get it, and `getMessagesForTopic` returns it.
    public var persist: Bool
    /// Only these participants receive it (also from persistence and history); everyone when `nil`.
    public var sendOnly: [String]?

    /// Makes options.
    public init(persist: Bool = false, sendOnly: [String]? = nil) {
        self.persist = persist
        self.sendOnly = sendOnly
    }

    /// Reads `persist` and `sendOnly` from a literal; other keys are ignored.
    public init(dictionaryLiteral elements: (String, RawJSON)...) {
        let values = Dictionary(elements, uniquingKeysWith: { _, last in last })
        self.persist = values["persist"]?.boolValue ?? false
        self.sendOnly = values["sendOnly"]?.stringArrayValue
    }
}

/// An event on a meeting's stream; its `type` (see ``MeetingEventType``) names which fields are set.
public struct MeetingEvent: Codable, Sendable, Hashable {
    /// The event's type.
    public var type: String
    /// The participant concerned, as it is now.
    public var participant: MeetingParticipant?
    /// The participant concerned, by id.
    public var participantId: String?
    /// A new mode.
    public var mode: Mode?
    /// A new pin state.
    public var pinState: PinState?
    /// The media kind enabled or disabled.
    public var kind: MediaKind?
    /// A pub/sub message.
    public var message: PubSubMessage?
    /// Why a participant left (`left`, `timeout`, `duplicate`, `ended`), or an entry request's name.
    public var reason: String?
    /// The connection a newer join replaced (`duplicate`).
    public var replacedClientId: String?
    /// The livestream's new state (`meeting.livestreamStateChanged`).
    public var livestream: LivestreamInfo?
    /// The recording's new state (`meeting.recordingStateChanged`).
    public var recording: RecordingInfo?
    /// The meeting's participant count (`meeting.participantCountChanged`).
    public var count: Int?
    /// For a message sent to some participants only: the users it is for. The server
    /// delivers such an event only to them (live, on replay and in history).
    public var audience: [String]?

    /// Makes an event.
    public init(type: String, participant: MeetingParticipant? = nil, participantId: String? = nil, mode: Mode? = nil, pinState: PinState? = nil,
                kind: MediaKind? = nil, message: PubSubMessage? = nil, reason: String? = nil, replacedClientId: String? = nil, audience: [String]? = nil,
                livestream: LivestreamInfo? = nil, count: Int? = nil) {
        self.livestream = livestream
        self.count = count
        self.type = type
        self.participant = participant
        self.participantId = participantId
        self.mode = mode
        self.pinState = pinState
        self.kind = kind
        self.message = message
        self.reason = reason
        self.replacedClientId = replacedClientId
        self.audience = audience
    }
}

/// The meeting event types.
public enum MeetingEventType {
    /// A participant joined (or, with `replacedClientId`, joined again from a new connection).
    /// A participant off stage (`RECV_ONLY` or `SIGNALLING_ONLY`, never `SEND_AND_RECV`, not
    /// a moderator) is announced to the moderators and `SEND_AND_RECV` participants only, as
    /// are its other changes; the rest see ``participantCountChanged``.
    public static let participantJoined = "meeting.participantJoined"
    /// A participant left (`reason`: `left`, `timeout`, `duplicate`, `ended`).
    public static let participantLeft = "meeting.participantLeft"
    /// A participant is reconnecting, or back; or, sent to everyone, a participant off stage
    /// came on stage (its mode became `SEND_AND_RECV`).
    public static let participantStateChanged = "meeting.participantStateChanged"
    /// The meeting's participant count changed (``MeetingEvent/count``): announced to
    /// everyone at most once a second, whatever joined and left in between.
    public static let participantCountChanged = "meeting.participantCountChanged"
    /// A participant changed its own mode.
    public static let modeChanged = "meeting.modeChanged"
    /// A participant turned a medium on.
    public static let streamEnabled = "meeting.streamEnabled"
    /// A participant turned a medium off.
    public static let streamDisabled = "meeting.streamDisabled"
    /// A participant's pins changed.
    public static let pinStateChanged = "meeting.pinStateChanged"
    /// Someone asks to join (to the moderators only).
    public static let entryRequested = "meeting.entryRequested"
    /// A moderator answered an entry request (on the requester's private stream).
    public static let entryResponded = "meeting.entryResponded"
    /// The meeting ended.
    public static let ended = "meeting.ended"
    /// The livestream's state changed (``MeetingEvent/livestream``).
    public static let livestreamStateChanged = "meeting.livestreamStateChanged"
    /// The recording's state changed (``MeetingEvent/recording``).
    public static let recordingStateChanged = "meeting.recordingStateChanged"
    /// A pub/sub message.
    public static let pubsubMessage = "pubsub.message"
}
