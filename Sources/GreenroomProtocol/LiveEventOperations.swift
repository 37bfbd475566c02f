import Foundation

/// The live event operations. Each is documented with its arguments and result in
/// `docs/PROTOCOL.md`.
public enum LiveEventOperation {
    /// ``LiveEventCreateArgs`` → ``LiveEventData``.
    public static let create = WireOperation<LiveEventCreateArgs, LiveEventData>("live.create")
    /// ``LiveEventRef`` → ``LiveEventData``.
    public static let get = WireOperation<LiveEventRef, LiveEventData>("live.get")
    /// ``LiveEventListArgs`` → ``Page`` of ``LiveEventData``, newest first.
    public static let list = WireOperation<LiveEventListArgs, Page<LiveEventData>>("live.list")
    /// ``LiveEventInfoArgs`` → ``LiveEventData``: hosts only.
    public static let updateInfo = WireOperation<LiveEventInfoArgs, LiveEventData>("live.updateInfo")
    /// ``LiveEventRef`` → ``LiveEventData``: hosts only, `created → ready`.
    public static let setReady = WireOperation<LiveEventRef, LiveEventData>("live.setReady")
    /// ``LiveEventRef`` → ``LiveEventData``: hosts only, `ready → ongoing`.
    public static let start = WireOperation<LiveEventRef, LiveEventData>("live.start")
    /// ``LiveEventRef`` → ``LiveEventData``: hosts only, `ready` or `ongoing → ended`.
    public static let end = WireOperation<LiveEventRef, LiveEventData>("live.end")
    /// ``LiveEventRef`` → ``RecordingInfo``: hosts only, while `ongoing`. Starts recording the
    /// event's livestream picture; the video will be the caller's. As `meeting.startRecording`.
    public static let startRecording = WireOperation<LiveEventRef, RecordingInfo>("live.startRecording")
    /// ``LiveEventRef`` → ``RecordingInfo``: hosts only. Stops the recording: it becomes a
    /// video. Ending the event stops it too.
    public static let stopRecording = WireOperation<LiveEventRef, RecordingInfo>("live.stopRecording")
    /// ``LiveEventRef`` → ``LiveEventEntry``: participants, in `ready` or `ongoing`.
    public static let enter = WireOperation<LiveEventRef, LiveEventEntry>("live.enter")
    /// ``LiveEventRef`` → ``EmptyResult``.
    public static let exit = WireOperation<LiveEventRef, EmptyResult>("live.exit")
    /// ``LiveEventHostArgs`` → ``LiveEventEntry``: users in `userIdsForHost`, at most 6 at once.
    public static let enterAsHost = WireOperation<LiveEventHostArgs, LiveEventEntry>("live.enterAsHost")
    /// ``LiveEventRef`` → ``EmptyResult``.
    public static let exitAsHost = WireOperation<LiveEventRef, EmptyResult>("live.exitAsHost")
    /// ``LiveEventMediaArgs`` → ``LiveEventHost``: an entered host's microphone and camera.
    public static let setHostMedia = WireOperation<LiveEventMediaArgs, LiveEventHost>("live.setHostMedia")
    /// ``LiveEventCustomItemsArgs`` → ``CustomItemsResult``: hosts, while `ongoing`; an upsert.
    public static let updateCustomItems = WireOperation<LiveEventCustomItemsArgs, CustomItemsResult>("live.updateCustomItems")
    /// ``LiveEventCustomItemKeysArgs`` → ``CustomItemsResult``: hosts, while `ongoing`.
    public static let deleteCustomItems = WireOperation<LiveEventCustomItemKeysArgs, CustomItemsResult>("live.deleteCustomItems")
    /// ``LiveEventRef`` → ``CustomItemsResult``: hosts, while `ongoing`.
    public static let deleteAllCustomItems = WireOperation<LiveEventRef, CustomItemsResult>("live.deleteAllCustomItems")
    /// ``LiveEventReactionArgs`` → ``EmptyResult``: anyone entered, for the event's reaction keys.
    public static let increaseReactionCount = WireOperation<LiveEventReactionArgs, EmptyResult>("live.increaseReactionCount")
}

/// The arguments of `live.create`.
public struct LiveEventCreateArgs: Codable, Sendable, Hashable {
    /// Video or audio only; `video` by default.
    public var type: LiveEventType?
    /// The title.
    public var title: String?
    /// The cover picture.
    public var coverURL: String?
    /// The users who may enter as hosts; the creator when empty.
    public var userIdsForHost: [String]?
    /// The reactions participants may send (1–20 keys).
    public var reactionKeys: [String]?
    /// The custom items to start with.
    public var customItems: [String: String]?

    /// Makes the arguments.
    public init(type: LiveEventType? = nil, title: String? = nil, coverURL: String? = nil, userIdsForHost: [String]? = nil,
                reactionKeys: [String]? = nil, customItems: [String: String]? = nil) {
        self.type = type
        self.title = title
        self.coverURL = coverURL
        self.userIdsForHost = userIdsForHost
        self.reactionKeys = reactionKeys
        self.customItems = customItems
    }
}

/// Names a live event.
public struct LiveEventRef: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String

    /// Makes the reference.
    public init(liveEventId: String) { self.liveEventId = liveEventId }
}

/// The filters and paging of `live.list`.
public struct LiveEventListArgs: Codable, Sendable, Hashable {
    /// Only events in these states.
    public var states: [LiveEventState]?
    /// Only events created by this user.
    public var createdBy: String?
    /// Only these events.
    public var ids: [String]?
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(states: [LiveEventState]? = nil, createdBy: String? = nil, ids: [String]? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.states = states
        self.createdBy = createdBy
        self.ids = ids
        self.limit = limit
        self.cursor = cursor
    }
}

/// The arguments of `live.updateInfo`: the fields given replace the stored ones.
public struct LiveEventInfoArgs: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String
    /// A new title.
    public var title: String?
    /// A new cover picture.
    public var coverURL: String?

    /// Makes the arguments.
    public init(liveEventId: String, title: String? = nil, coverURL: String? = nil) {
        self.liveEventId = liveEventId
        self.title = title
        self.coverURL = coverURL
    }
}

/// The arguments of `live.enterAsHost`.
public struct LiveEventHostArgs: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String
    /// Whether the microphone starts on (default `true`).
    public var turnAudioOn: Bool?
    /// Whether the camera starts on (default `true` for video events).
    public var turnVideoOn: Bool?

    /// Makes the arguments.
    public init(liveEventId: String, turnAudioOn: Bool? = nil, turnVideoOn: Bool? = nil) {
        self.liveEventId = liveEventId
        self.turnAudioOn = turnAudioOn
        self.turnVideoOn = turnVideoOn
    }
}

/// The arguments of `live.setHostMedia`: what is given changes.
public struct LiveEventMediaArgs: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String
    /// Microphone on or off.
    public var audioOn: Bool?
    /// Camera on or off.
    public var videoOn: Bool?

    /// Makes the arguments.
    public init(liveEventId: String, audioOn: Bool? = nil, videoOn: Bool? = nil) {
        self.liveEventId = liveEventId
        self.audioOn = audioOn
        self.videoOn = videoOn
    }
}

/// What entering returns: the event as it is now, and the stream position that state
/// reflects (subscribe from it to miss nothing).
public struct LiveEventEntry: Codable, Sendable, Hashable {
    /// The live event.
    public var liveEvent: LiveEventData
    /// The position of the event's stream the state includes.
    public var position: StreamPosition

    /// Makes the entry.
    public init(liveEvent: LiveEventData, position: StreamPosition) {
        self.liveEvent = liveEvent
        self.position = position
    }
}

/// The arguments of `live.updateCustomItems`.
public struct LiveEventCustomItemsArgs: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String
    /// Items to add or replace.
    public var customItems: [String: String]

    /// Makes the arguments.
    public init(liveEventId: String, customItems: [String: String]) {
        self.liveEventId = liveEventId
        self.customItems = customItems
    }
}

/// The arguments of `live.deleteCustomItems`.
public struct LiveEventCustomItemKeysArgs: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String
    /// The keys to delete.
    public var customItemKeys: [String]

    /// Makes the arguments.
    public init(liveEventId: String, customItemKeys: [String]) {
        self.liveEventId = liveEventId
        self.customItemKeys = customItemKeys
    }
}

/// What a custom item change returns: all items after it and the keys it changed.
public struct CustomItemsResult: Codable, Sendable, Hashable {
    /// The custom items now.
    public var customItems: [String: String]
    /// The keys updated or deleted.
    public var keys: [String]

    /// Makes the result.
    public init(customItems: [String: String], keys: [String]) {
        self.customItems = customItems
        self.keys = keys
    }
}

/// The arguments of `live.increaseReactionCount`.
public struct LiveEventReactionArgs: Codable, Sendable, Hashable {
    /// The event.
    public var liveEventId: String
    /// One of the event's reaction keys.
    public var key: String

    /// Makes the arguments.
    public init(liveEventId: String, key: String) {
        self.liveEventId = liveEventId
        self.key = key
    }
}

extension Limits {
    /// The most hosts inside a live event at once.
    public static let maxLiveEventHosts = 6
    /// The most custom items a live event holds.
    public static let maxCustomItems = 50
    /// The longest custom item key.
    public static let maxCustomItemKeyLength = 128
    /// The longest custom item value.
    public static let maxCustomItemValueLength = 1_024
}
