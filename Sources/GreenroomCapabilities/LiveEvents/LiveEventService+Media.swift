import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension LiveEventService: MediaRoomRules {
    /// Seed 000's rules: a host inside may publish while the event is `ready` (a preview) or
    /// `ongoing`; a participant inside receives and never publishes.
    package func mediaRights(_ caller: Caller, roomId: String) async throws -> MediaRights {
        let event = try await Self.load(storage, roomId).event
        let stream = StreamKind.live.stream(roomId)
        let isHost = try await roster.held(by: caller, stream: stream, key: Self.hostKey(caller.userId), in: storage) != nil
        let isParticipant = try await roster.held(by: caller, stream: stream, key: Self.participantKey(caller.userId), in: storage) != nil
        guard isHost || isParticipant else {
            throw GreenroomError(.actionNotAllowedInCurrentState, "enter live event \(roomId) before using its media")
        }
        let publishRefusal: GreenroomError? = if !isHost {
            GreenroomError(.actionNotAllowedForParticipant, "only the event's hosts publish; participants receive")
        } else if event.state != .ready && event.state != .ongoing {
            Self.wrongState(event, "publish")
        } else {
            nil
        }
        return MediaRights(participantId: caller.userId, publishRefusal: publishRefusal,
                           receiveRefusal: event.state == .ended ? Self.wrongState(event, "receive") : nil)
    }

    /// A host's audio and video state follows what Janus receives (`live.hostMutedAudio`,
    /// `live.hostStoppedVideo`, and back).
    package func mediaFlowChanged(_ feed: MediaFeed, roomId: String, kind: MediaKind, flowing: Bool) async {
        let args = LiveEventMediaArgs(liveEventId: roomId, audioOn: kind == .audio ? flowing : nil, videoOn: kind == .video ? flowing : nil)
        _ = try? await setHostMedia(args, userId: feed.userId)
    }
}
