import GreenroomProtocol

extension MeetingService: MediaRoomRules {
    /// Seed 001's rules: a joined `SEND_AND_RECV` participant may publish, `RECV_ONLY` may only
    /// receive, `SIGNALLING_ONLY` may do neither.
    func mediaRights(_ caller: Caller, roomId: String) async throws -> MediaRights {
        let participant = try await mine(roomId, caller).participant
        let mode = participant.mode.rawValue
        return MediaRights(
            participantId: participant.participantId,
            publishRefusal: participant.mode == .SEND_AND_RECV ? nil
                : GreenroomError(.mediaNotAllowedInMode, "a \(mode) participant may not publish: change mode to SEND_AND_RECV first"),
            receiveRefusal: participant.mode == .SIGNALLING_ONLY
                ? GreenroomError(.mediaNotAllowedInMode, "a \(mode) participant receives no media") : nil)
    }
}
