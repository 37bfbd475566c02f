import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension MeetingService: LivestreamOwner {
    /// Seed 001: the pinned participants are who appear on the livestream, in the order they
    /// joined (their camera, screen share or both, as pinned); with nobody pinned, every
    /// publisher.
    package func livestreamLineup(roomId: String) async throws -> LivestreamLineup {
        let pins = try await Self.load(storage, roomId).meeting.pins
        let joined = try await participants(roomId).map(\.participant)
        return LivestreamLineup(pinned: joined.compactMap { participant in
                                    pins[participant.participantId].flatMap { $0.isPinned ? (participant.participantId, $0) : nil }
                                },
                                all: joined.map(\.participantId),
                                cameraOff: Set(joined.filter { !$0.webcamOn }.map(\.participantId)))
    }

    package func livestreamEvent(roomId: String, _ info: LivestreamInfo) throws -> EventAppend {
        try Self.event(roomId, MeetingEvent(type: MeetingEventType.livestreamStateChanged, livestream: info))
    }

    /// Whoever may read the meeting may watch: its participants' users and moderators.
    package func authorizeLivestream(_ identity: Identity, roomId: String) async throws {
        try await authorizeRead(identity, meetingId: roomId)
    }

    /// Starts the meeting's livestream (moderators only, while it is active).
    package func startLivestream(_ meetingId: String, identity: Identity) async throws -> LivestreamInfo {
        try Self.requireModerator(identity, to: "start the livestream")
        guard try await Self.load(storage, meetingId).meeting.state == .active else {
            throw GreenroomError(.meetingEnded, "meeting \(meetingId) has ended")
        }
        return try await livestreams.start(Self.stream(meetingId))
    }

    /// Stops the meeting's livestream (moderators only).
    package func stopLivestream(_ meetingId: String, identity: Identity) async throws -> LivestreamInfo {
        try Self.requireModerator(identity, to: "stop the livestream")
        _ = try await Self.load(storage, meetingId)
        return await livestreams.stop(Self.stream(meetingId))
    }
}
