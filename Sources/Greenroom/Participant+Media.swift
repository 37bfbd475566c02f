import Foundation
import GreenroomProtocol

/// One of a participant's media streams, as the seeds' `participant.streams` list them: its
/// kind and the `mid` that names its track in your ``MediaEngine``'s connections (the sending
/// one for the local participant, the receiving one for everyone else).
public struct ParticipantStream: Sendable, Hashable {
    /// The `mid` of its track.
    public let mid: String
    /// Audio or video.
    public let kind: MediaKind
    /// The feed it belongs to.
    public let feedId: UInt64

    /// Makes a stream.
    public init(mid: String, kind: MediaKind, feedId: UInt64) {
        self.mid = mid
        self.kind = kind
        self.feedId = feedId
    }
}

extension Participant {
    /// The participant's streams by `mid`, through the meeting's attached ``MediaSession``:
    /// for a remote participant the tracks received from it now, for the local participant
    /// the tracks it sends now (a muted microphone or a camera turned off is not listed).
    /// Empty without attached media.
    public func streams() async -> [String: ParticipantStream] {
        guard let media = meeting?.media else { return [:] }
        return await media.streams(of: id)
    }
}

extension MediaSession {
    /// The streams of a participant of the room, by `mid` (see ``Participant/streams()``).
    public func streams(of participantId: String) -> [String: ParticipantStream] {
        if participantId == self.participantId {
            guard isPublishing, let feed = localFeed else { return [:] }
            let sent = feed.tracks.compactMap { track -> ParticipantStream? in
                guard let kind = MediaKind(rawValue: track.kind), !muted.contains(kind) else { return nil }
                return ParticipantStream(mid: track.mid, kind: kind, feedId: feed.feedId)
            }
            return Dictionary(sent.map { ($0.mid, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let received = tracks.values.compactMap { track -> ParticipantStream? in
            guard feeds[track.feedId]?.participantId == participantId, let kind = MediaKind(rawValue: track.kind) else { return nil }
            return ParticipantStream(mid: track.mid, kind: kind, feedId: track.feedId)
        }
        return Dictionary(received.map { ($0.mid, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
