import Foundation
import Greenroom
import Observation

/// The stage's participant list (seed 001's ParticipantListView): everyone in order, with a
/// host tag for `SEND_AND_RECV`, a requested tag after an invitation, and camera and mic
/// state, kept current by the meeting's events.
///
/// ```swift
/// List(viewModel.rows) { row in
///     HStack {
///         Text(row.displayName)
///         if row.isRequested { Text("Requested") } else if row.isHost { Text("Host") }
///         Image(systemName: row.cameraOn ? "video.fill" : "video.slash.fill")
///         Image(systemName: row.micOn ? "mic.fill" : "mic.slash.fill")
///     }
/// }
/// ```
@MainActor
@Observable
public final class ParticipantListViewModel: MeetingEventListener, ParticipantEventListener {
    /// One participant as the list shows it.
    public struct Row: Sendable, Hashable, Identifiable {
        /// The participant's id.
        public var id: String
        /// The name shown.
        public var displayName: String
        /// Whether this is the local participant.
        public var isLocal: Bool
        /// Its mode.
        public var mode: Mode
        /// `SEND_AND_RECV`: shown as a host.
        public var isHost: Bool
        /// Invited on stage and not a host yet.
        public var isRequested: Bool
        /// Its camera is on.
        public var cameraOn: Bool
        /// Its microphone is on.
        public var micOn: Bool
        /// Something of it is pinned.
        public var isPinned: Bool
    }

    /// The participants, the local one first: everyone for a host or moderator; for a viewer
    /// (`RECV_ONLY`, `SIGNALLING_ONLY`), those on stage and itself (see `Meeting.participants`).
    public private(set) var rows: [Row] = []
    /// How many participants the meeting has, listed or not: the seed's "Participants (N)".
    public private(set) var participantCount = 0
    /// The meeting listed.
    @ObservationIgnored public let meeting: Meeting
    @ObservationIgnored private var requested: Set<String> = []

    /// Makes the list and starts following the meeting.
    public init(meeting: Meeting) {
        self.meeting = meeting
        meeting.addEventListener(self)
        refresh()
    }

    /// Shows the requested tag on a participant (the stage invitation does this).
    public func markRequested(_ participantId: String) {
        requested.insert(participantId)
        refresh()
    }

    /// Clears the requested tag.
    public func clearRequested(_ participantId: String) {
        requested.remove(participantId)
        refresh()
    }

    /// Reads the rows again from the meeting.
    public func refresh() {
        let participants = meeting.participants
        for participant in participants { participant.addEventListener(self) }
        rows = participants.map { participant in
            let host = participant.mode == .SEND_AND_RECV
            return Row(id: participant.id, displayName: participant.displayName, isLocal: participant.isLocal, mode: participant.mode,
                       isHost: host, isRequested: requested.contains(participant.id) && !host, cameraOn: participant.webcamOn,
                       micOn: participant.micOn, isPinned: participant.pinState.isPinned)
        }
        participantCount = max(meeting.participantCount, rows.count)
    }

    /// The row of a participant.
    public func row(_ participantId: String) -> Row? { rows.first { $0.id == participantId } }

    /// Reads the rows once joined.
    public func onMeetingJoined() { refresh() }
    /// Adds the newcomer's row.
    public func onParticipantJoined(_ participant: Participant) { refresh() }
    /// Drops the row of who left.
    public func onParticipantLeft(_ participant: Participant) {
        requested.remove(participant.id)
        refresh()
    }
    /// Updates the host tag (and clears a request the participant answered by going on stage).
    public func onParticipantModeChanged(participantId: String, mode: Mode) {
        if mode == .SEND_AND_RECV { requested.remove(participantId) }
        refresh()
    }
    /// Updates the pinned flag.
    public func onPinStateChanged(participantId: String, pinType: PinType?) { refresh() }
    /// Updates the count.
    public func onParticipantCountChanged(count: Int) { participantCount = max(count, rows.count) }
    /// Updates camera and mic state.
    public func onStreamEnabled(_ stream: MediaStream, forParticipant participant: Participant) { refresh() }
    /// Updates camera and mic state.
    public func onStreamDisabled(_ stream: MediaStream, forParticipant participant: Participant) { refresh() }
}
