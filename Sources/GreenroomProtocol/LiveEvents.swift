import Foundation

/// What a live event carries, fixed at creation.
public enum LiveEventType: String, Codable, Sendable, Hashable {
    /// Video and audio.
    case video
    /// Audio only.
    case audioOnly
}

/// Where a live event is in its life: `created → ready → ongoing → ended`.
public enum LiveEventState: String, Codable, Sendable, Hashable {
    /// Created; hosts may enter and prepare, participants may not enter.
    case created
    /// Ready: participants may enter.
    case ready
    /// Live: custom items may change and their changes reach everyone.
    case ongoing
    /// Over: everyone was forced out.
    case ended
}

/// A host inside a live event.
public struct LiveEventHost: Codable, Sendable, Hashable {
    /// The host's id in this event (one per entry).
    public var hostId: String
    /// The host's user id.
    public var userId: String
    /// `connected`, or `disconnected` while its connection is gone (within the grace period).
    public var state: HostState
    /// Whether the host's microphone is on.
    public var isAudioOn: Bool
    /// Whether the host's camera is on.
    public var isVideoOn: Bool
    /// When the host entered.
    public var enteredAt: Date

    /// Whether a host's connection is there.
    public enum HostState: String, Codable, Sendable, Hashable {
        /// Connected.
        case connected
        /// Its connection dropped; it has exited unless it comes back within the grace period.
        case disconnected
    }

    /// Makes a host.
    public init(hostId: String, userId: String, state: HostState, isAudioOn: Bool, isVideoOn: Bool, enteredAt: Date) {
        self.hostId = hostId
        self.userId = userId
        self.state = state
        self.isAudioOn = isAudioOn
        self.isVideoOn = isVideoOn
        self.enteredAt = enteredAt
    }
}

/// A live event's participant counts, kept exact on the server.
public struct ParticipantCountInfo: Codable, Sendable, Hashable {
    /// Participants in now.
    public var participantCount: Int
    /// The most participants in at once.
    public var peakParticipantCount: Int
    /// How many users entered at least once.
    public var cumulativeParticipantCount: Int

    /// Makes the counts.
    public init(participantCount: Int, peakParticipantCount: Int, cumulativeParticipantCount: Int) {
        self.participantCount = participantCount
        self.peakParticipantCount = peakParticipantCount
        self.cumulativeParticipantCount = cumulativeParticipantCount
    }
}

/// A live event as the server has it.
public struct LiveEventData: Codable, Sendable, Hashable {
    /// The event's id.
    public var liveEventId: String
    /// Video or audio only.
    public var type: LiveEventType
    /// The title.
    public var title: String?
    /// The cover picture.
    public var coverURL: String?
    /// Where it is in its life.
    public var state: LiveEventState
    /// The users who may enter as hosts.
    public var userIdsForHost: [String]
    /// The hosts inside (at most 6).
    public var hosts: [LiveEventHost]
    /// Participants in now.
    public var participantCount: Int
    /// The most participants in at once.
    public var peakParticipantCount: Int
    /// How many users entered at least once.
    public var cumulativeParticipantCount: Int
    /// Who created it, and when.
    public var createdBy: String
    /// When it was created.
    public var createdAt: Date
    /// When it became ready.
    public var setReadyAt: Date?
    /// When it started.
    public var startedAt: Date?
    /// When it ended, and by whom.
    public var endedAt: Date?
    /// Who ended it.
    public var endedBy: String?
    /// The reactions participants may send.
    public var reactionKeys: [String]
    /// How many of each reaction were sent.
    public var reactionCounts: [String: Int]
    /// The custom items (at most 50; key 1–128 characters, value at most 1,024).
    public var customItems: [String: String]
    /// Its HLS livestream, which runs while it is `ongoing` on servers with media and ffmpeg:
    /// every publishing host side by side.
    public var livestream: LivestreamInfo? = nil
    /// Its recording, once one was started: the one going on, or the last one.
    public var recording: RecordingInfo? = nil

    /// How long it has been (or was) live, in seconds; 0 before it started.
    public var duration: TimeInterval {
        guard let startedAt else { return 0 }
        return (endedAt ?? Date()).timeIntervalSince(startedAt)
    }

    /// The counts as one value.
    public var participantCountInfo: ParticipantCountInfo {
        ParticipantCountInfo(participantCount: participantCount, peakParticipantCount: peakParticipantCount,
                             cumulativeParticipantCount: cumulativeParticipantCount)
    }

    /// Makes a live event.
    public init(liveEventId: String, type: LiveEventType, title: String?, coverURL: String?, state: LiveEventState,
                userIdsForHost: [String], hosts: [LiveEventHost] = [], participantCount: Int = 0, peakParticipantCount: Int = 0,
                cumulativeParticipantCount: Int = 0, createdBy: String, createdAt: Date, setReadyAt: Date? = nil,
                startedAt: Date? = nil, endedAt: Date? = nil, endedBy: String? = nil, reactionKeys: [String] = [],
                reactionCounts: [String: Int] = [:], customItems: [String: String] = [:]) {
        self.liveEventId = liveEventId
        self.type = type
        self.title = title
        self.coverURL = coverURL
        self.state = state
        self.userIdsForHost = userIdsForHost
        self.hosts = hosts
        self.participantCount = participantCount
        self.peakParticipantCount = peakParticipantCount
        self.cumulativeParticipantCount = cumulativeParticipantCount
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.setReadyAt = setReadyAt
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.endedBy = endedBy
        self.reactionKeys = reactionKeys
        self.reactionCounts = reactionCounts
        self.customItems = customItems
    }

    /// The event's stream, `live:ID`.
    public var stream: String { StreamKind.live.stream(liveEventId) }
}

/// An event on a live event's stream; its `type` (see ``LiveEventEventType``) names which
/// fields are set.
public struct LiveEventEvent: Codable, Sendable, Hashable {
    /// The event's type.
    public var type: String
    /// The live event after the change (state, info and host events).
    public var liveEvent: LiveEventData?
    /// The host concerned (host events).
    public var host: LiveEventHost?
    /// The counts (count events).
    public var participantCountInfo: ParticipantCountInfo?
    /// The custom items after the change (custom item events).
    public var customItems: [String: String]?
    /// The keys updated or deleted (custom item events).
    public var keys: [String]?
    /// The reaction counts that changed (reaction events).
    public var reactionCounts: [String: Int]?
    /// Who caused it.
    public var actorId: String?
    /// The livestream's new state (`live.livestreamStateChanged`).
    public var livestream: LivestreamInfo? = nil
    /// The recording's new state (`live.recordingStateChanged`).
    public var recording: RecordingInfo? = nil

    /// Makes an event.
    public init(type: String, liveEvent: LiveEventData? = nil, host: LiveEventHost? = nil, participantCountInfo: ParticipantCountInfo? = nil,
                customItems: [String: String]? = nil, keys: [String]? = nil, reactionCounts: [String: Int]? = nil, actorId: String? = nil) {
        self.type = type
        self.liveEvent = liveEvent
        self.host = host
        self.participantCountInfo = participantCountInfo
        self.customItems = customItems
        self.keys = keys
        self.reactionCounts = reactionCounts
        self.actorId = actorId
    }
}

/// The live event event types.
public enum LiveEventEventType {
    /// `created → ready`.
    public static let ready = "live.ready"
    /// `ready → ongoing`.
    public static let started = "live.started"
    /// `→ ended`; everyone is out.
    public static let ended = "live.ended"
    /// Title or cover changed.
    public static let infoUpdated = "live.infoUpdated"
    /// A host entered.
    public static let hostEntered = "live.hostEntered"
    /// A host exited (or did not come back within the grace period).
    public static let hostExited = "live.hostExited"
    /// A host's connection came back within the grace period.
    public static let hostConnected = "live.hostConnected"
    /// A host's connection dropped.
    public static let hostDisconnected = "live.hostDisconnected"
    /// A host muted its microphone.
    public static let hostMutedAudio = "live.hostMutedAudio"
    /// A host unmuted its microphone.
    public static let hostUnmutedAudio = "live.hostUnmutedAudio"
    /// A host started its camera.
    public static let hostStartedVideo = "live.hostStartedVideo"
    /// A host stopped its camera.
    public static let hostStoppedVideo = "live.hostStoppedVideo"
    /// The participant counts changed (at most once a second, coalesced).
    public static let participantCountChanged = "live.participantCountChanged"
    /// Custom items were set.
    public static let customItemsUpdated = "live.customItemsUpdated"
    /// Custom items were deleted.
    public static let customItemsDeleted = "live.customItemsDeleted"
    /// Reaction counts changed (at most once a second, coalesced).
    public static let reactionCountsUpdated = "live.reactionCountsUpdated"
    /// The livestream's state changed (``LiveEventEvent/livestream``).
    public static let livestreamStateChanged = "live.livestreamStateChanged"
    /// The recording's state changed (``LiveEventEvent/recording``).
    public static let recordingStateChanged = "live.recordingStateChanged"
}
