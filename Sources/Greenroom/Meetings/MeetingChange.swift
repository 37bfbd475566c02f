import Foundation
import GreenroomProtocol

/// A change of a meeting, as ``Meeting/events`` gives it: the same changes, in the same
/// order, as the ``MeetingEventListener`` methods named beside each case are called with.
public enum MeetingChange: Sendable {
    /// The local participant joined (``MeetingEventListener/onMeetingJoined()``).
    case meetingJoined
    /// The local participant left, or was put out (``MeetingEventListener/onMeetingLeft()``).
    case meetingLeft
    /// Someone joined (``MeetingEventListener/onParticipantJoined(_:)``).
    case participantJoined(Participant)
    /// Someone left (``MeetingEventListener/onParticipantLeft(_:)``).
    case participantLeft(Participant)
    /// The local connection to the meeting changed state (``MeetingEventListener/onMeetingStateChanged(meetingState:)``).
    case meetingStateChanged(MeetingState)
    /// A call failed, or the local participant was put out (``MeetingEventListener/onError(error:)``).
    case error(GreenroomError)
    /// A participant's pins changed; `nil` when nothing of it is pinned now (``MeetingEventListener/onPinStateChanged(participantId:pinType:)``).
    case pinStateChanged(participantId: String, pinType: PinType?)
    /// A participant changed its mode (``MeetingEventListener/onParticipantModeChanged(participantId:mode:)``).
    case participantModeChanged(participantId: String, mode: Mode)
    /// Someone asks to join, told to moderators (``MeetingEventListener/onEntryRequested(participantId:name:)``).
    case entryRequested(participantId: String, name: String)
    /// A moderator answered the local participant's request to join (``MeetingEventListener/onEntryResponded(participantId:decision:)``).
    case entryResponded(participantId: String, decision: String)
    /// The active speaker changed; `nil` when nobody talks (``MeetingEventListener/onSpeakerChanged(participantId:)``).
    case speakerChanged(participantId: String?)
    /// The meeting's livestream changed state (``MeetingEventListener/onLivestreamStateChanged(state:)``).
    case livestreamStateChanged(LivestreamStatus)
    /// The meeting's recording changed state (``MeetingEventListener/onRecordingStateChanged(state:)``).
    case recordingStateChanged(RecordingStatus)
    /// The participant count changed, at most once a second (``MeetingEventListener/onParticipantCountChanged(count:)``).
    case participantCountChanged(Int)
    /// A participant's connection quality changed (``MeetingEventListener/onConnectionQualityChanged(participantId:quality:)``).
    case connectionQualityChanged(participantId: String, quality: ConnectionQuality)
}

extension MeetingEventListener {
    /// Calls the method of this listener that tells `change`.
    func tell(_ change: MeetingChange) {
        switch change {
        case .meetingJoined: onMeetingJoined()
        case .meetingLeft: onMeetingLeft()
        case .participantJoined(let participant): onParticipantJoined(participant)
        case .participantLeft(let participant): onParticipantLeft(participant)
        case .meetingStateChanged(let state): onMeetingStateChanged(meetingState: state)
        case .error(let error): onError(error: error)
        case .pinStateChanged(let id, let type): onPinStateChanged(participantId: id, pinType: type)
        case .participantModeChanged(let id, let mode): onParticipantModeChanged(participantId: id, mode: mode)
        case .entryRequested(let id, let name): onEntryRequested(participantId: id, name: name)
        case .entryResponded(let id, let decision): onEntryResponded(participantId: id, decision: decision)
        case .speakerChanged(let id): onSpeakerChanged(participantId: id)
        case .livestreamStateChanged(let state): onLivestreamStateChanged(state: state)
        case .recordingStateChanged(let state): onRecordingStateChanged(state: state)
        case .participantCountChanged(let count): onParticipantCountChanged(count: count)
        case .connectionQualityChanged(let id, let quality): onConnectionQualityChanged(participantId: id, quality: quality)
        }
    }
}
