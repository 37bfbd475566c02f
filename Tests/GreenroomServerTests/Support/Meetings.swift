import Foundation
import Greenroom
import Testing

/// Records a meeting's listener calls and pub/sub messages, in order.
@MainActor
final class MeetingRecorder: MeetingEventListener, PubSubMessageListener, ParticipantEventListener {
    var calls: [String] = []
    /// The changes ``Meeting/events`` gave, written as ``calls`` are.
    var streamed: [String] = []
    var messages: [Greenroom.PubSubMessage] = []
    var errors: [GreenroomError] = []
    /// Pins a participant that changes to `SEND_AND_RECV`, as the seed's host screen does.
    var pinOnStage = false
    weak var meeting: Meeting?

    func onMeetingJoined() { calls.append("joined") }
    func onMeetingLeft() { calls.append("left") }
    func onParticipantJoined(_ participant: Participant) { calls.append("participantJoined:\(participant.id)") }
    func onParticipantLeft(_ participant: Participant) { calls.append("participantLeft:\(participant.id)") }
    func onMeetingStateChanged(meetingState: MeetingState) { calls.append("state:\(meetingState.rawValue)") }
    func onError(error: GreenroomError) {
        calls.append("error:\(error.name)")
        errors.append(error)
    }
    func onPinStateChanged(participantId: String, pinType: PinType?) { calls.append("pin:\(participantId):\(pinType?.rawValue ?? "none")") }
    func onParticipantModeChanged(participantId: String, mode: Greenroom.Mode) {
        calls.append("mode:\(participantId):\(mode.rawValue)")
        guard pinOnStage, let participant = meeting?.participants.first(where: { $0.id == participantId }) else { return }
        if participant.mode == .SEND_AND_RECV { participant.pin() } else { participant.unpin() }
    }
    func onEntryRequested(participantId: String, name: String) { calls.append("entryRequested:\(participantId)") }
    func onEntryResponded(participantId: String, decision: String) { calls.append("entryResponded:\(participantId):\(decision)") }
    func onMessageReceived(_ message: Greenroom.PubSubMessage) { messages.append(message) }
    func onSpeakerChanged(participantId: String?) { calls.append("speaker:\(participantId ?? "none")") }
    func onLivestreamStateChanged(state: LivestreamStatus) { calls.append("livestream:\(state.rawValue)") }
    func onRecordingStateChanged(state: RecordingStatus) { calls.append("recording:\(state.rawValue)") }
    func onParticipantCountChanged(count: Int) { calls.append("count:\(count)") }
    func onConnectionQualityChanged(participantId: String, quality: ConnectionQuality) { calls.append("quality:\(participantId):\(quality.rawValue)") }
    func onStreamEnabled(_ stream: MediaStream, forParticipant participant: Participant) { calls.append("on:\(participant.id):\(stream.kind.rawValue)") }
    func onStreamDisabled(_ stream: MediaStream, forParticipant participant: Participant) { calls.append("off:\(participant.id):\(stream.kind.rawValue)") }

    /// The messages of a topic.
    func on(_ topic: String) -> [Greenroom.PubSubMessage] { messages.filter { $0.topic == topic } }
}

extension MeetingRecorder {
    /// A recorder listening to `meeting`.
    nonisolated static func attached(to meeting: Meeting) async -> MeetingRecorder {
        let recorder = await MainActor.run {
            let recorder = MeetingRecorder()
            recorder.meeting = meeting
            return recorder
        }
        let changes = meeting.events
        Task { @MainActor in
            for await change in changes { recorder.streamed.append(change.recorded) }
        }
        meeting.addEventListener(recorder)
        return recorder
    }

    /// Waits until ``Meeting/events`` has given the same changes, in the same order, as the
    /// meeting's listener was told (participants' stream calls aside), for a recorder
    /// attached before the meeting was joined.
    nonisolated func expectEventsStreamMatches() async throws {
        try await wait("the events stream tells what the listener was told") { recorder in
            let told = recorder.calls.filter { !$0.hasPrefix("on:") && !$0.hasPrefix("off:") }
            return !told.isEmpty && recorder.streamed == told
        }
    }

    /// Waits until `condition` holds for the recorder.
    nonisolated func wait(_ what: String, timeout: Duration = .seconds(30), _ condition: @escaping @MainActor (MeetingRecorder) -> Bool) async throws {
        try await eventually(what, timeout: timeout) { await MainActor.run { condition(self) } }
    }

    /// The calls so far.
    nonisolated var snapshot: [String] { get async { await MainActor.run { calls } } }
}

extension TestServer {
    /// A client for `user` and a meeting it joins as `participantId`, with a recorder.
    func joined(_ user: String, meeting: String, as participantId: String, mode: Greenroom.Mode, grants: [String] = [],
                mic: Bool = false, webcam: Bool = false) async throws -> (GreenroomClient, Meeting, MeetingRecorder) {
        let client = try await client(user, grants: grants)
        let joined = client.initMeeting(meetingId: meeting, participantId: participantId, participantName: participantId.capitalized,
                                        micEnabled: mic, webcamEnabled: webcam, mode: mode, metaData: ["user": .string(user)])
        let recorder = await MeetingRecorder.attached(to: joined)
        try await joined.join()
        return (client, joined, recorder)
    }
}

extension MeetingChange {
    /// The change written as ``MeetingRecorder`` writes the listener call that tells it.
    var recorded: String {
        switch self {
        case .meetingJoined: "joined"
        case .meetingLeft: "left"
        case .participantJoined(let participant): "participantJoined:\(participant.id)"
        case .participantLeft(let participant): "participantLeft:\(participant.id)"
        case .meetingStateChanged(let state): "state:\(state.rawValue)"
        case .error(let error): "error:\(error.name)"
        case .pinStateChanged(let id, let type): "pin:\(id):\(type?.rawValue ?? "none")"
        case .participantModeChanged(let id, let mode): "mode:\(id):\(mode.rawValue)"
        case .entryRequested(let id, _): "entryRequested:\(id)"
        case .entryResponded(let id, let decision): "entryResponded:\(id):\(decision)"
        case .speakerChanged(let id): "speaker:\(id ?? "none")"
        case .livestreamStateChanged(let state): "livestream:\(state.rawValue)"
        case .recordingStateChanged(let state): "recording:\(state.rawValue)"
        case .participantCountChanged(let count): "count:\(count)"
        case .connectionQualityChanged(let id, let quality): "quality:\(id):\(quality.rawValue)"
        }
    }
}
