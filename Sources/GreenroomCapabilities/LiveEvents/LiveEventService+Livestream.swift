import Foundation
import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension LiveEventService: LivestreamOwner {
    /// Nobody is pinned in a live event: every publishing host, in the order they entered.
    package func livestreamLineup(roomId: String) async throws -> LivestreamLineup {
        let hosts = try await Self.load(storage, roomId).event.hosts
        return LivestreamLineup(all: hosts.map(\.userId), cameraOff: Set(hosts.filter { !$0.isVideoOn }.map(\.userId)))
    }

    package func livestreamEvent(roomId: String, _ info: LivestreamInfo) throws -> EventAppend {
        var event = LiveEventEvent(type: LiveEventEventType.livestreamStateChanged)
        event.livestream = info
        let data = try RawJSON(encoding: event)
        return EventAppend(stream: StreamKind.live.stream(roomId), type: LiveEventEventType.livestreamStateChanged, data: data)
    }

    /// Whoever may read the event may watch: its hosts, its creator, whoever is inside, and
    /// the app's backend.
    package func authorizeLivestream(_ identity: Identity, roomId: String) async throws {
        if identity.userId == Identity.backendUserId { return }
        try await authorizeRead(identity.userId, eventId: roomId)
    }

    /// Starts the livestream of an event that went `ongoing`; on a server without media or
    /// ffmpeg, or at the node's bound, the event goes on without one (logged).
    package func startLivestream(_ event: LiveEventData) async -> LiveEventData {
        guard event.state == .ongoing else { return event }
        do {
            var event = event
            event.livestream = try await livestreams.start(event.stream)
            return event
        } catch let error as GreenroomError where error.errorCode == .unavailable {
            return event
        } catch {
            livestreams.logger.warning("live event \(event.liveEventId) runs without a livestream: \(error)")
            return event
        }
    }
}
