import Foundation

/// Where a recording is in its life, named as VideoSDK names it (`onRecordingStateChanged`).
public enum RecordingStatus: String, Codable, Sendable, Hashable {
    /// Asked for: the stage's livestream is starting (it is started for the recording when
    /// it was not running), and nothing is recorded yet.
    case RECORDING_STARTING
    /// Recording: what the stage shows from ``RecordingInfo/startedAt`` on is kept.
    case RECORDING_STARTED
    /// Asked to stop (or the meeting ended, or a limit was reached): the last seconds are
    /// taken and the recording is made into a video.
    case RECORDING_STOPPING
    /// Not recording. After a recording, ``RecordingInfo/videoId`` names the video it became,
    /// or ``RecordingInfo/reason`` says why there is none.
    case RECORDING_STOPPED
}

/// A meeting's recording: its state and, once stopped, the video it became.
///
/// A recording keeps the stage's composed picture, the livestream's layout (the pinned
/// participants side by side, or every publisher), and its mixed audio. Once stopped it is
/// an MP4 in the video feed, owned by the moderator who started it and processed into
/// renditions like any upload (`video.created`, then `video.updated` to `ready`).
public struct RecordingInfo: Codable, Sendable, Hashable {
    /// Where it is in its life.
    public var status: RecordingStatus
    /// The user the video will belong to: the moderator who started it.
    public var owner: String?
    /// When it was asked for.
    public var requestedAt: Date?
    /// When recording began (``RecordingStatus/RECORDING_STARTED``).
    public var startedAt: Date?
    /// When it was asked to stop.
    public var stoppedAt: Date?
    /// The video it became, in the video feed (``RecordingStatus/RECORDING_STOPPED``).
    public var videoId: String?
    /// The recorded seconds, once stopped.
    public var duration: Double?
    /// Why it stopped when it was not asked (`ended`, `livestreamStopped`, `limitReached`), or
    /// why no video came of it (`nothingRecorded`, `rateLimited: …`, another error's name and
    /// message).
    public var reason: String?

    /// Makes the information.
    public init(status: RecordingStatus, owner: String? = nil, requestedAt: Date? = nil, startedAt: Date? = nil, stoppedAt: Date? = nil,
                videoId: String? = nil, duration: Double? = nil, reason: String? = nil) {
        self.status = status
        self.owner = owner
        self.requestedAt = requestedAt
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
        self.videoId = videoId
        self.duration = duration
        self.reason = reason
    }
}
