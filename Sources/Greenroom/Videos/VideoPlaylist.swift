import Foundation
import GreenroomProtocol

/// A filtered, sorted, paged list of videos that stays current with the feed's
/// notifications: created videos that match are inserted in order, updates are applied
/// (a video that stops matching leaves), deleted ones are removed.
///
/// ```swift
/// let playlist = VideoPlaylist(session: session, status: .ready)
/// try await playlist.loadNextVideos()
/// for index in 0..<playlist.count { show(playlist.videoAt(index)) }
/// ```
public final class VideoPlaylist: Sendable {
    private struct State {
        var videos: [Video] = []
        var cursor: String?
        var hasMore = true
        var totalCount = 0
        var follower: Task<Void, Never>?
    }

    /// The session the playlist reads through.
    public let session: VideoSession
    /// Only this owner's videos.
    public let owner: String?
    /// Only videos in this status.
    public let status: VideoStatus?
    /// Only videos with this tag.
    public let tag: String?
    /// Oldest first instead of newest first.
    public let oldestFirst: Bool
    /// Videos per page.
    public let pageSize: Int
    private let state = Locked(State())
    /// The streams ``changes`` handed out: a reader that lags is told once that something changed.
    private let signals = ChangeStreams<Void>(bufferingPolicy: .bufferingNewest(1))

    /// Makes a playlist and starts following the feed.
    public init(session: VideoSession, owner: String? = nil, status: VideoStatus? = nil, tag: String? = nil, oldestFirst: Bool = false, pageSize: Int = 20) {
        self.session = session
        self.owner = owner
        self.status = status
        self.tag = tag
        self.oldestFirst = oldestFirst
        self.pageSize = pageSize
        let events = session.events
        let follower = Task { [weak self] in
            for await event in events { await self?.apply(event) }
        }
        state.withLock { $0.follower = follower }
    }

    deinit {
        state.withLock { $0.follower }?.cancel()
    }

    /// How many videos are loaded.
    public var count: Int { state.withLock { $0.videos.count } }
    /// How many videos match in all.
    public var totalCount: Int { state.withLock { $0.totalCount } }
    /// Whether more pages may follow.
    public var hasMore: Bool { state.withLock { $0.hasMore } }
    /// The loaded videos, in order.
    public var videos: [Video] { state.withLock { $0.videos } }
    /// The video at `index` (of the loaded ones), or `nil`.
    public func videoAt(_ index: Int) -> Video? { state.withLock { $0.videos.indices.contains(index) ? $0.videos[index] : nil } }

    /// A signal each time the playlist changed (a page loaded, a notification applied).
    public var changes: AsyncStream<Void> { signals.makeStream() }

    /// Loads the next page (nothing after the last).
    public func loadNextVideos() async throws {
        let (cursor, more) = state.withLock { ($0.cursor, $0.hasMore) }
        guard more else { return }
        let page = try await session.videos(owner: owner, status: status, tag: tag, oldestFirst: oldestFirst, limit: pageSize, cursor: cursor)
        state.withLock { state in
            for video in page.items where !state.videos.contains(where: { $0.id == video.id }) { state.videos.append(video) }
            state.cursor = page.next
            state.hasMore = page.next != nil
            state.totalCount = page.totalCount
        }
        signal()
    }

    private func matches(_ video: Video) -> Bool {
        (owner == nil || video.owner == owner) && (status == nil || video.status == status) && (tag.map(video.tags.contains) ?? true)
    }

    private func apply(_ event: VideoEvent) async {
        state.withLock { state in
            switch event {
            case .created(let video):
                guard matches(video), !state.videos.contains(where: { $0.id == video.id }) else { return }
                insert(video, into: &state)
            case .updated(let id, let changes):
                if let index = state.videos.firstIndex(where: { $0.id == id }) {
                    guard let updated = try? state.videos[index].applying(changes) else { return }
                    if matches(updated) {
                        state.videos[index] = updated
                    } else {
                        state.videos.remove(at: index)
                        state.totalCount -= 1
                    }
                }
            case .deleted(let id):
                if let index = state.videos.firstIndex(where: { $0.id == id }) {
                    state.videos.remove(at: index)
                    state.totalCount -= 1
                }
            }
        }
        if case .updated(let id, _) = event, state.withLock({ !$0.videos.contains { $0.id == id } }) {
            // A video that now matches (processing finished for a `ready` playlist) joins it.
            if let video = try? await session.video(id: id), matches(video) {
                state.withLock { state in
                    if !state.videos.contains(where: { $0.id == id }) { insert(video, into: &state) }
                }
            }
        }
        signal()
    }

    private func insert(_ video: Video, into state: inout State) {
        let index = state.videos.firstIndex { oldestFirst ? $0.createdAt > video.createdAt : $0.createdAt < video.createdAt } ?? state.videos.count
        // Newest first: a new video goes on top; oldest first: only when every page is loaded.
        if oldestFirst && state.hasMore && index == state.videos.count { state.totalCount += 1; return }
        state.videos.insert(video, at: index)
        state.totalCount += 1
    }

    private func signal() {
        signals.yield(())
    }
}
