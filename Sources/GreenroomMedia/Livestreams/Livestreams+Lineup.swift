import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Who should be on a livestream's picture, as the room's owner says.
package struct LivestreamLineup: Sendable {
    /// The pinned participants, left to right, and what of each is pinned (meetings).
    package var pinned: [(id: String, pins: PinState)] = []
    /// Everyone who may be on it, in order: with nobody pinned, their feeds are on it.
    package var all: [String] = []
    /// Those whose camera is off: their tile keeps their audio but shows no video (a video
    /// that does not arrive would hold the whole picture back).
    package var cameraOff: Set<String> = []

    /// A lineup of the pinned participants, everyone who may be on it, and those whose
    /// camera is off.
    package init(pinned: [(id: String, pins: PinState)] = [], all: [String] = [], cameraOff: Set<String> = []) {
        self.pinned = pinned
        self.all = all
        self.cameraOff = cameraOff
    }
}

/// One tile of a livestream's picture: a feed's camera or screen share, and the feed's audio
/// on the first of its tiles.
package struct LivestreamSource: Hashable, Sendable {
    package var feed: MediaFeed
    package var video: MediaTrack?
    package var audio: MediaTrack?

    /// Whether the tile shows a screen share.
    package var isShare: Bool { video?.isShare == true }
}

extension LivestreamEngine {
    /// The tiles for `lineup`, left to right, at most ``maxTiles``. A pinned participant
    /// shows its camera for a `CAM` pin, its screen share for a `SHARE` pin (its camera when
    /// it shares nothing), both for `SHARE_AND_CAM`; with nobody pinned, every feed shows its
    /// camera and screen share, in the order of `lineup.all` and then the rest oldest first.
    package static func sources(feeds: [MediaFeed], lineup: LivestreamLineup) -> [LivestreamSource] {
        let published = feeds.filter { feed in feed.tracks.contains { $0.kind == "video" || $0.kind == "audio" } }
        var chosen: [(feed: MediaFeed, pins: PinState)] = []
        if lineup.pinned.isEmpty {
            let named = lineup.all.compactMap { id in published.first { $0.participantId == id } }
            chosen = (named + published.filter { feed in !named.contains(feed) }).map { ($0, PinState(cam: true, share: true)) }
        } else {
            chosen = lineup.pinned.compactMap { pin in published.first { $0.participantId == pin.id }.map { ($0, pin.pins) } }
        }
        var sources: [LivestreamSource] = []
        for (feed, pins) in chosen {
            let camera = lineup.cameraOff.contains(feed.participantId) ? nil : feed.tracks.first { $0.kind == "video" && !$0.isShare }
            let share = feed.tracks.first { $0.kind == "video" && $0.isShare }
            let audio = feed.tracks.first { $0.kind == "audio" }
            var videos: [MediaTrack?] = []
            if pins.cam || (pins.share && share == nil) { videos.append(camera) }
            if pins.share, let share { videos.append(share) }
            for (index, video) in videos.enumerated() where video != nil || (index == 0 && audio != nil) {
                sources.append(LivestreamSource(feed: feed, video: video, audio: index == 0 ? audio : nil))
            }
        }
        return Array(sources.prefix(maxTiles))
    }

    /// Who is on the picture (each once, left to right) and whose screen share.
    package static func layout(_ sources: [LivestreamSource]) -> (layout: [String], sharing: [String]?) {
        var layout: [String] = []
        var sharing: [String] = []
        for source in sources {
            if !layout.contains(source.feed.participantId) { layout.append(source.feed.participantId) }
            if source.isShare, !sharing.contains(source.feed.participantId) { sharing.append(source.feed.participantId) }
        }
        return (layout, sharing.isEmpty ? nil : sharing)
    }
}
