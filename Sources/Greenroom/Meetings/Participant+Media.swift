import Foundation
import GreenroomProtocol

extension Participant {
    /// The participant's streams by `mid`, through the meeting's attached ``MediaSession``:
    /// for a remote participant the tracks received from it now, for the local participant
    /// the tracks it sends now (a muted microphone or a camera turned off is not listed).
    /// Empty without attached media.
    public func streams() async -> [String: MediaStream] {
        guard let media = meeting?.media else { return [:] }
        return await media.streams(of: id)
    }
}

extension MediaSession {
    /// The streams of a participant of the room, by `mid` (see ``Participant/streams()``).
    public func streams(of participantId: String) -> [String: MediaStream] {
        if participantId == self.participantId {
            guard isPublishing, let feed = localFeed else { return [:] }
            let sent = feed.tracks.compactMap { track -> (String, MediaStream)? in
                guard let kind = MediaKind(rawValue: track.kind), !muted.contains(kind) else { return nil }
                return (track.mid, MediaStream(kind: kind, mid: track.mid, feedId: feed.feedId))
            }
            return Dictionary(sent, uniquingKeysWith: { first, _ in first })
        }
        let received = tracks.values.compactMap { track -> (String, MediaStream)? in
            guard feeds[track.feedId]?.participantId == participantId, let kind = MediaKind(rawValue: track.kind) else { return nil }
            return (track.mid, MediaStream(kind: kind, mid: track.mid, feedId: track.feedId))
        }
        return Dictionary(received, uniquingKeysWith: { first, _ in first })
    }
}

extension Participant {
    /// Which layer of this remote participant's video to receive, as VideoSDK's
    /// `participant.setQuality`: `low`, `medium`, `high`, or `auto` (the media server follows
    /// the local link's losses). It matters when the publisher sends simulcast; one that
    /// sends a single layer is received as it is. Throws `notFound` while nothing of the
    /// participant is received.
    public func setQuality(_ quality: MediaQuality) async throws {
        guard let media = meeting?.media else { throw GreenroomError(.notFound, "no media is attached to the meeting") }
        try await media.setQuality(quality, of: id)
    }
}

extension MediaSession {
    /// Chooses the layer received of every video feed of a participant (see
    /// ``Participant/setQuality(_:)``).
    public func setQuality(_ quality: MediaQuality, of participantId: String) async throws {
        let received = Set(tracks.values.filter { $0.kind == "video" && feeds[$0.feedId]?.participantId == participantId }.map(\.feedId))
        guard !received.isEmpty else { throw GreenroomError(.notFound, "no video of \(participantId) is received") }
        for feed in received.sorted() {
            _ = try await client.send(MediaOperation.configure, args: MediaConfigureArgs(stream: stream, feed: feed, quality: quality))
        }
    }
}
