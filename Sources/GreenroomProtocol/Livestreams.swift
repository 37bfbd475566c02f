import Foundation

/// Where a livestream is in its life, named as VideoSDK names it (`onLivestreamStateChanged`).
public enum LivestreamStatus: String, Codable, Sendable, Hashable {
    /// Asked for: the server is forwarding the stage and the encoder is starting (also while
    /// it is restarted after the encoder died or fell behind; ``LivestreamInfo/reason`` says why).
    case LIVESTREAM_STARTING
    /// The playlist lists three segments: viewers can play it.
    case LIVESTREAM_STARTED
    /// Asked to stop: the encoder is stopping and the files are being removed.
    case LIVESTREAM_STOPPING
    /// Not running.
    case LIVESTREAM_STOPPED
}

/// A meeting's (or live event's) HLS livestream: its state, where its playlist is, and who is
/// on it.
public struct LivestreamInfo: Codable, Sendable, Hashable {
    /// Where it is in its life.
    public var status: LivestreamStatus
    /// The playlist's path on the server (`/v1/livestreams/meeting:ID/index.m3u8`): read it with
    /// the session's token in `Authorization`, or with `?token=` from a player.
    public var playlist: String
    /// Who is on the picture now (participant ids in a meeting, user ids in a live event), left
    /// to right: the pinned participants, or every publisher when nobody is pinned.
    public var layout: [String]
    /// Those of ``layout`` whose screen share is on the picture (a `SHARE` pin, or anyone
    /// sharing when nobody is pinned), in a tile of its own; `nil` when none is.
    public var sharing: [String]?
    /// When it was asked for.
    public var startedAt: Date?
    /// Why the state changed when it was not asked: `encoderExited`, `encoderStalled`,
    /// `ended` (the meeting or live event ended).
    public var reason: String?

    /// Makes the information.
    public init(status: LivestreamStatus, playlist: String, layout: [String] = [], sharing: [String]? = nil, startedAt: Date? = nil,
                reason: String? = nil) {
        self.status = status
        self.playlist = playlist
        self.layout = layout
        self.sharing = sharing
        self.startedAt = startedAt
        self.reason = reason
    }

    /// The playlist's path for the room of `stream` (`meeting:ID`, `live:ID`).
    public static func playlistPath(_ stream: String) -> String { "/v1/livestreams/\(stream)/index.m3u8" }
}
