import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension LiveEventService {
    package func recordingEvent(roomId: String, _ info: RecordingInfo) throws -> EventAppend {
        var event = LiveEventEvent(type: LiveEventEventType.recordingStateChanged)
        event.recording = info
        return EventAppend(stream: StreamKind.live.stream(roomId), type: LiveEventEventType.recordingStateChanged, data: try RawJSON(encoding: event))
    }

    /// Starts recording an `ongoing` event (its hosts, or the app's backend): the video will be
    /// the caller's; when the backend asks, `owner`'s, or the event creator's.
    package func startRecording(_ id: String, by userId: String, owner: String? = nil) async throws -> RecordingInfo {
        let event = try await Self.load(storage, id).event
        guard userId == Identity.backendUserId || event.userIdsForHost.contains(userId) else {
            throw GreenroomError(.actionNotAllowedForParticipant, "only the event's hosts may record it")
        }
        let owner = try RecordingOwner.resolve(owner, caller: userId, fallback: event.createdBy)
        guard event.state == .ongoing else { throw Self.wrongState(event, "record") }
        return try await livestreams.startRecording(event.stream, owner: owner)
    }

    /// Stops an event's recording (its hosts, or the app's backend); it becomes a video.
    package func stopRecording(_ id: String, by userId: String) async throws -> RecordingInfo {
        let event = try await Self.load(storage, id).event
        guard userId == Identity.backendUserId || event.userIdsForHost.contains(userId) else {
            throw GreenroomError(.actionNotAllowedForParticipant, "only the event's hosts may stop its recording")
        }
        return await livestreams.stopRecording(event.stream)
    }
}
