import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension MeetingService {
    package func recordingEvent(roomId: String, _ info: RecordingInfo) throws -> EventAppend {
        var event = MeetingEvent(type: MeetingEventType.recordingStateChanged)
        event.recording = info
        return try Self.event(roomId, event)
    }

    /// Starts recording the meeting (moderators only, while it is active): the video will be
    /// the caller's, or `owner`'s when the app's backend asks (which must name one).
    package func startRecording(_ meetingId: String, identity: Identity, owner: String? = nil) async throws -> RecordingInfo {
        try Self.requireModerator(identity, to: "start recording")
        let owner = try RecordingOwner.resolve(owner, caller: identity.userId, fallback: nil)
        guard try await Self.load(storage, meetingId).meeting.state == .active else {
            throw GreenroomError(.meetingEnded, "meeting \(meetingId) has ended")
        }
        return try await livestreams.startRecording(Self.stream(meetingId), owner: owner)
    }

    /// Stops the meeting's recording (moderators only); it becomes a video.
    package func stopRecording(_ meetingId: String, identity: Identity) async throws -> RecordingInfo {
        try Self.requireModerator(identity, to: "stop recording")
        _ = try await Self.load(storage, meetingId)
        return await livestreams.stopRecording(Self.stream(meetingId))
    }
}
