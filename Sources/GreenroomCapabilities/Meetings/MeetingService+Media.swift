import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension MeetingService: MediaRoomRules {
    /// Seed 001's rules: a joined `SEND_AND_RECV` participant may publish, `RECV_ONLY` may only
    /// receive, `SIGNALLING_ONLY` may do neither.
    package func mediaRights(_ caller: Caller, roomId: String) async throws -> MediaRights {
        let participant = try await mine(roomId, caller).participant
        let mode = participant.mode.rawValue
        return MediaRights(
            participantId: participant.participantId,
            publishRefusal: participant.mode == .SEND_AND_RECV ? nil
                : GreenroomError(.mediaNotAllowedInMode, "a \(mode) participant may not publish: change mode to SEND_AND_RECV first"),
            receiveRefusal: participant.mode == .SIGNALLING_ONLY
                ? GreenroomError(.mediaNotAllowedInMode, "a \(mode) participant receives no media") : nil)
    }

    /// The participant's microphone or camera state follows what Janus receives: a stopped
    /// track turns it off (`meeting.streamDisabled`), media arriving again turns it on.
    package func mediaFlowChanged(_ feed: MediaFeed, roomId: String, kind: MediaKind, flowing: Bool) async {
        let stream = Self.stream(roomId)
        do {
            try await events.transact { transaction in
                guard let entry = try await transaction.presenceEntry(stream: stream, clientId: Self.key(feed.participantId)),
                      var participant = try entry.data["participant"]?.decode(as: MeetingParticipant.self),
                      participant.mode == .SEND_AND_RECV else { return }
                switch kind {
                case .audio where participant.micOn != flowing: participant.micOn = flowing
                case .video where participant.webcamOn != flowing: participant.webcamOn = flowing
                default: return
                }
                try await Self.store(participant, in: entry, transaction)
                _ = try await transaction.append([try Self.event(roomId, MeetingEvent(
                    type: flowing ? MeetingEventType.streamEnabled : MeetingEventType.streamDisabled,
                    participantId: participant.participantId, kind: kind))])
            }
        } catch {
            media.logger.warning("cannot follow \(feed.participantId)'s \(kind.rawValue) in meeting \(roomId): \(error)")
        }
    }
}
