import Foundation
import GreenroomProtocol

extension Meeting {
    /// The meeting's HLS livestream as last announced (its state, playlist and who is on
    /// it), or `nil` when none was started.
    public var livestream: LivestreamInfo? { state.withLock { $0.livestream } }

    /// Starts the meeting's livestream (moderators only): the pinned participants side by
    /// side, or every publisher when nobody is pinned, as HLS that AVPlayer plays. Listeners
    /// hear ``MeetingEventListener/onLivestreamStateChanged(state:)`` as it starts.
    /// Refusals: `moderatorRequired`, `livestreamLimitReached`, `unavailable` (no media).
    @discardableResult
    public func startLivestream() async throws -> LivestreamInfo {
        let info: LivestreamInfo = try await client.send(MeetingOperation.startLivestream, args: MeetingRef(meetingId: id))
        return info
    }

    /// Stops the meeting's livestream (moderators only); its files are removed.
    @discardableResult
    public func stopLivestream() async throws -> LivestreamInfo {
        let info: LivestreamInfo = try await client.send(MeetingOperation.stopLivestream, args: MeetingRef(meetingId: id))
        return info
    }

    /// The livestream's playlist URL for a player that cannot set headers (AVPlayer, hls.js):
    /// the server's address, the playlist's path and, as `?token=`, a token good for this
    /// livestream's files alone for an hour (never the session's own). `nil` until a
    /// livestream was started.
    public func livestreamPlaybackURL() async throws -> URL? {
        guard let path = livestream?.playlist else { return nil }
        return try await client.resourceURL(path: path, scope: ResourceTokenArgs.folder(of: path))
    }
}
