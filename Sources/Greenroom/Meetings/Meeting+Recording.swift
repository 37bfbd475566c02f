import Foundation
import GreenroomProtocol

extension Meeting {
    /// The meeting's recording as last announced (the one going on, or the last one with the
    /// video it became), or `nil` when none was started.
    public var recording: RecordingInfo? { state.withLock { $0.recording } }

    /// Starts recording the meeting (moderators only), as VideoSDK's `startRecording`: the
    /// stage's composed picture (the livestream's layout, the livestream started for it when
    /// it does not run) with the mixed audio. Listeners hear
    /// ``MeetingEventListener/onRecordingStateChanged(state:)``: `RECORDING_STARTING`, then
    /// `RECORDING_STARTED` once the picture is being kept. Refusals: `moderatorRequired`,
    /// `meetingEnded`, `alreadyExists` (the last recording is still being made into a video),
    /// `livestreamLimitReached`, `unavailable` (no media or ffmpeg).
    @discardableResult
    public func startRecording() async throws -> RecordingInfo {
        try await client.send(MeetingOperation.startRecording, args: MeetingRef(meetingId: id))
    }

    /// Stops the recording (moderators only). It becomes a video in the feed, owned by the
    /// moderator who started it: `RECORDING_STOPPING` while it is made, then
    /// `RECORDING_STOPPED` with `videoId`; the video is then processed into
    /// renditions like any upload (`VideoSession`'s `video.created` and `video.updated`).
    /// Ending the meeting stops it too.
    @discardableResult
    public func stopRecording() async throws -> RecordingInfo {
        try await client.send(MeetingOperation.stopRecording, args: MeetingRef(meetingId: id))
    }
}
