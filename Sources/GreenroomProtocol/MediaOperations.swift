import Foundation

/// The media operations: Greenroom relays WebRTC signalling between a client and the SFU
/// (Janus) over the client's one WebSocket, after checking the caller's rights; the audio
/// and video flow between the client and the SFU. Each is documented in `docs/PROTOCOL.md`.
///
/// A room is named by the stream it belongs to: `meeting:ID` or `live:ID`.
public enum MediaOperation {
    /// ``MediaPublishArgs`` → ``MediaPublishResult``: sends the caller's offer, answers with the SFU's answer.
    public static let publish = WireOperation<MediaPublishArgs, MediaPublishResult>("media.publish")
    /// ``MediaRoomRef`` → ``EmptyResult``: stops publishing.
    public static let unpublish = WireOperation<MediaRoomRef, EmptyResult>("media.unpublish")
    /// ``MediaSubscribeArgs`` → ``MediaSubscribeResult``: receives feeds; answers with the SFU's offer.
    public static let subscribe = WireOperation<MediaSubscribeArgs, MediaSubscribeResult>("media.subscribe")
    /// ``MediaSubscribeArgs`` → ``MediaSubscribeResult``: stops receiving feeds; answers with the SFU's new offer.
    public static let unsubscribe = WireOperation<MediaSubscribeArgs, MediaSubscribeResult>("media.unsubscribe")
    /// ``MediaAnswerArgs`` → ``EmptyResult``: the caller's answer to the last subscription offer.
    public static let answer = WireOperation<MediaAnswerArgs, EmptyResult>("media.answer")
    /// ``MediaTrickleArgs`` → ``EmptyResult``: one of the caller's ICE candidates (or the end of them).
    public static let trickle = WireOperation<MediaTrickleArgs, EmptyResult>("media.trickle")
    /// ``MediaRoomRef`` → ``MediaRoomState``: the room's feeds now.
    public static let feeds = WireOperation<MediaRoomRef, MediaRoomState>("media.feeds")
    /// ``MediaRoomRef`` → ``EmptyResult``: stops publishing and receiving in the room.
    public static let leave = WireOperation<MediaRoomRef, EmptyResult>("media.leave")
    /// ``MediaRoomRef`` → ``MediaSubscribeResult``: restarts ICE on the caller's receiving
    /// session (its media stopped flowing, or the device's network changed): answers with the
    /// SFU's offer with fresh ICE credentials, to answer with `media.answer`; the feeds
    /// received stay the same. (A publisher restarts ICE by sending `media.publish` again
    /// with an offer made with `iceRestart`: its feed stays the same.)
    public static let iceRestart = WireOperation<MediaRoomRef, MediaSubscribeResult>("media.iceRestart")
    /// ``MediaConfigureArgs`` → ``MediaConfigureArgs``: which layer of a simulcast feed the
    /// caller receives (the seeds' vendor's `participant.setQuality`); answers what is set.
    public static let configure = WireOperation<MediaConfigureArgs, MediaConfigureArgs>("media.configure")
    /// ``MediaRoomRef`` → ``MediaICEServers``: the STUN and TURN servers to make the room's
    /// peer connections with, TURN with short-lived credentials of the caller's own.
    public static let iceServers = WireOperation<MediaRoomRef, MediaICEServers>("media.iceServers")
}

/// A session description (JSEP), as `RTCSessionDescription` gives it.
public struct SessionDescription: Codable, Sendable, Hashable {
    /// `offer` or `answer`.
    public var type: String
    /// The SDP.
    public var sdp: String

    /// Makes a description.
    public init(type: String, sdp: String) {
        self.type = type
        self.sdp = sdp
    }
}

/// Names a media room by its stream (`meeting:ID`, `live:ID`).
public struct MediaRoomRef: Codable, Sendable, Hashable {
    /// The meeting's or live event's stream.
    public var stream: String

    /// Makes the reference.
    public init(stream: String) { self.stream = stream }
}

/// The arguments of `media.publish`.
public struct MediaPublishArgs: Codable, Sendable, Hashable {
    /// The room's stream.
    public var stream: String
    /// The caller's offer (with its ICE candidates, or trickle them after).
    public var jsep: SessionDescription
    /// The `mid`s of the offer's video tracks that are a screen share rather than the camera
    /// (the livestream shows them for a `SHARE` pin); `nil` or empty: none is.
    public var shares: [String]?

    /// Makes the arguments.
    public init(stream: String, jsep: SessionDescription, shares: [String]? = nil) {
        self.stream = stream
        self.jsep = jsep
        self.shares = shares
    }
}

/// What `media.publish` answers.
public struct MediaPublishResult: Codable, Sendable, Hashable {
    /// The SFU's answer.
    public var jsep: SessionDescription
    /// The caller's feed, as others subscribe to it.
    public var feed: MediaFeed

    /// Makes the result.
    public init(jsep: SessionDescription, feed: MediaFeed) {
        self.jsep = jsep
        self.feed = feed
    }
}

/// A published feed: whose it is and its tracks.
public struct MediaFeed: Codable, Sendable, Hashable {
    /// The feed's id in the room.
    public var feedId: UInt64
    /// The publisher's user.
    public var userId: String
    /// The publisher's participant id in a meeting; its user id in a live event.
    public var participantId: String
    /// The publisher's connection.
    public var clientId: String
    /// Its tracks.
    public var tracks: [MediaTrack]

    /// Makes a feed.
    public init(feedId: UInt64, userId: String, participantId: String, clientId: String, tracks: [MediaTrack]) {
        self.feedId = feedId
        self.userId = userId
        self.participantId = participantId
        self.clientId = clientId
        self.tracks = tracks
    }
}

/// One track of a feed.
public struct MediaTrack: Codable, Sendable, Hashable {
    /// The track's `mid` in the publisher's session.
    public var mid: String
    /// `audio` or `video`.
    public var kind: String
    /// The codec the SFU accepted (`opus`, `vp8`, …).
    public var codec: String?
    /// `true` for a screen share (named in ``MediaPublishArgs/shares``); `nil` for a camera
    /// or microphone.
    public var share: Bool?

    /// Makes a track.
    public init(mid: String, kind: String, codec: String? = nil, share: Bool? = nil) {
        self.mid = mid
        self.kind = kind
        self.codec = codec
        self.share = share
    }

    /// Whether it is a screen share.
    public var isShare: Bool { share == true }
}

/// The arguments of `media.subscribe` and `media.unsubscribe`.
public struct MediaSubscribeArgs: Codable, Sendable, Hashable {
    /// The room's stream.
    public var stream: String
    /// The feeds (`media.subscribe`: every feed but the caller's own when omitted).
    public var feeds: [UInt64]?

    /// Makes the arguments.
    public init(stream: String, feeds: [UInt64]? = nil) {
        self.stream = stream
        self.feeds = feeds
    }
}

/// What `media.subscribe` and `media.unsubscribe` answer.
public struct MediaSubscribeResult: Codable, Sendable, Hashable {
    /// The SFU's offer for the caller's receiving session: answer it with `media.answer`.
    /// `nil` when nothing changed.
    public var jsep: SessionDescription?
    /// The tracks the caller receives now, by `mid` in that session.
    public var streams: [MediaSubscribedTrack]

    /// Makes the result.
    public init(jsep: SessionDescription?, streams: [MediaSubscribedTrack]) {
        self.jsep = jsep
        self.streams = streams
    }
}

/// A track a subscriber receives.
public struct MediaSubscribedTrack: Codable, Sendable, Hashable {
    /// Its `mid` in the subscriber's session.
    public var mid: String
    /// The feed it comes from.
    public var feedId: UInt64
    /// `audio` or `video`.
    public var kind: String

    /// Makes the track.
    public init(mid: String, feedId: UInt64, kind: String) {
        self.mid = mid
        self.feedId = feedId
        self.kind = kind
    }
}

/// The arguments of `media.answer`.
public struct MediaAnswerArgs: Codable, Sendable, Hashable {
    /// The room's stream.
    public var stream: String
    /// The caller's answer.
    public var jsep: SessionDescription

    /// Makes the arguments.
    public init(stream: String, jsep: SessionDescription) {
        self.stream = stream
        self.jsep = jsep
    }
}

/// The arguments of `media.trickle`.
public struct MediaTrickleArgs: Codable, Sendable, Hashable {
    /// The room's stream.
    public var stream: String
    /// Which of the caller's sessions: `publisher` or `subscriber`.
    public var target: String
    /// The candidate as `RTCIceCandidate.toJSON()` gives it (`candidate`, `sdpMid`,
    /// `sdpMLineIndex`); `nil` when gathering is complete.
    public var candidate: [String: RawJSON]?

    /// Makes the arguments.
    public init(stream: String, target: String, candidate: [String: RawJSON]?) {
        self.stream = stream
        self.target = target
        self.candidate = candidate
    }
}

/// The feeds of a room.
public struct MediaRoomState: Codable, Sendable, Hashable {
    /// Every feed published now.
    public var feeds: [MediaFeed]

    /// Makes the state.
    public init(feeds: [MediaFeed]) { self.feeds = feeds }
}

/// The media events, on the room's stream (`meeting:ID`, `live:ID`); data ``MediaEvent``.
public enum MediaEventType {
    /// A feed was published: subscribe to it.
    public static let published = "media.published"
    /// A feed is gone (unpublished, its publisher lost the right, left, or the SFU lost it).
    public static let unpublished = "media.unpublished"
    /// A published feed's tracks changed (a renegotiation added or removed one, such as a
    /// screen share); `feed` has them as they are now. A receiver that wants the new tracks
    /// subscribes to the feed again.
    public static let updated = "media.updated"
    /// A publisher started or stopped talking, by the audio levels the SFU measures; data
    /// ``MediaTalkingEvent``.
    public static let talking = "media.talking"
}

/// The data of `media.talking`: the SFU heard a publisher start (or stop) talking.
public struct MediaTalkingEvent: Codable, Sendable, Hashable {
    /// `media.talking`.
    public var type: String
    /// The feed.
    public var feedId: UInt64
    /// Its publisher's participant id (meetings) or user id (live events).
    public var participantId: String
    /// Whether it talks now.
    public var talking: Bool

    /// Makes the event.
    public init(feedId: UInt64, participantId: String, talking: Bool) {
        self.type = MediaEventType.talking
        self.feedId = feedId
        self.participantId = participantId
        self.talking = talking
    }
}

/// The data of a media event.
public struct MediaEvent: Codable, Sendable, Hashable {
    /// `media.published` or `media.unpublished`.
    public var type: String
    /// The feed.
    public var feed: MediaFeed
    /// Why it is gone: `unpublished`, `modeChanged`, `left`, `hostExited`, `ended`, `mediaServerLost`.
    public var reason: String?

    /// Makes the event.
    public init(type: String, feed: MediaFeed, reason: String? = nil) {
        self.type = type
        self.feed = feed
        self.reason = reason
    }
}

/// Which layer of a simulcast feed a receiver gets. A publisher that sends one layer is
/// received as it is whatever is chosen.
public enum MediaQuality: String, Codable, Sendable, Hashable {
    /// The smallest layer (a quarter of the size).
    case low
    /// The middle layer (half the size).
    case medium
    /// The full size.
    case high
    /// The media server chooses: the full size, one layer down each time the receiver's
    /// link loses packets (Janus's `slowlink`), one up again after 15 seconds without.
    case auto
}

/// The arguments (and the result) of `media.configure`.
public struct MediaConfigureArgs: Codable, Sendable, Hashable {
    /// The room's stream.
    public var stream: String
    /// The feed received.
    public var feed: UInt64
    /// The layer to receive.
    public var quality: MediaQuality

    /// Makes the arguments.
    public init(stream: String, feed: UInt64, quality: MediaQuality) {
        self.stream = stream
        self.feed = feed
        self.quality = quality
    }
}
