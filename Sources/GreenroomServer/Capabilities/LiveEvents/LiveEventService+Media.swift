import GreenroomProtocol

extension LiveEventService: MediaRoomRules {
    /// Seed 000's rules: a host inside may publish while the event is `ready` (a preview) or
    /// `ongoing`; a participant inside receives and never publishes.
    func mediaRights(_ caller: Caller, roomId: String) async throws -> MediaRights {
        let event = try await Self.load(storage, roomId).event
        let stream = StreamKind.live.stream(roomId)
        let isHost = try await holds(caller, stream: stream, key: Self.hostKey(caller.userId))
        let isParticipant = try await holds(caller, stream: stream, key: Self.participantKey(caller.userId))
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
    func mediaFlowChanged(_ feed: MediaFeed, roomId: String, kind: MediaKind, flowing: Bool) async {
        let args = LiveEventMediaArgs(liveEventId: roomId, audioOn: kind == .audio ? flowing : nil, videoOn: kind == .video ? flowing : nil)
        _ = try? await setHostMedia(args, userId: feed.userId)
    }

    /// Whether the caller's connection holds the roster entry `key` on `stream` now.
    private func holds(_ caller: Caller, stream: String, key: String) async throws -> Bool {
        guard caller.session.rosterEntries.contains(where: { $0.stream == stream && $0.key == key }),
              let entry = try await storage.presenceEntry(stream: stream, clientId: key) else { return false }
        return roster.isHeld(entry, by: caller.clientId)
    }
}
