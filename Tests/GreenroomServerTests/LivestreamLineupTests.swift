import Foundation
import GreenroomProtocol
@testable import GreenroomMedia
@testable import GreenroomServer
import Testing

/// Who is on a livestream's picture and how ffmpeg lays it out, for lineups the browser tests
/// do not reach (four to six tiles, shares of several participants), without Janus or ffmpeg.
@Suite("Livestream lineups and layouts", .wholeRun)
struct LivestreamLineupTests {
    static func feed(_ id: String, share: Bool = false, camera: Bool = true, audio: Bool = true) -> MediaFeed {
        var tracks: [MediaTrack] = []
        if audio { tracks.append(MediaTrack(mid: "0", kind: "audio", codec: "opus")) }
        if camera { tracks.append(MediaTrack(mid: "1", kind: "video", codec: "vp8")) }
        if share { tracks.append(MediaTrack(mid: "2", kind: "video", codec: "vp8", share: true)) }
        return MediaFeed(feedId: UInt64(id.unicodeScalars.first!.value), userId: id, participantId: id, clientId: "c-\(id)", tracks: tracks)
    }

    static func describe(_ sources: [LivestreamSource]) -> [String] {
        sources.map { source in
            source.feed.participantId + (source.isShare ? ":share" : source.video == nil ? ":grey" : ":cam") + (source.audio == nil ? "" : "+a")
        }
    }

    @Test("nobody pinned: every feed's camera and share, in the owner's order then the rest; at most six tiles")
    func everyone() {
        let feeds = [Self.feed("c"), Self.feed("a", share: true), Self.feed("b"), Self.feed("d"), Self.feed("e", share: true)]
        let sources = LivestreamEngine.sources(feeds: feeds, lineup: LivestreamLineup(all: ["a", "b"]))
        #expect(Self.describe(sources) == ["a:cam+a", "a:share", "b:cam+a", "c:cam+a", "d:cam+a", "e:cam+a"])
        let (layout, sharing) = LivestreamEngine.layout(sources)
        #expect(layout == ["a", "b", "c", "d", "e"] && sharing == ["a"])
        #expect(LivestreamEncoder(tiles: Array(repeating: .init(), count: 6)).grid == (3, 2))
        #expect(LivestreamEncoder(tiles: Array(repeating: .init(), count: 4)).grid == (2, 2))
    }

    @Test("pins: CAM shows the camera, SHARE the share (the camera when there is none), both for SHARE_AND_CAM; audio once per participant; a camera off keeps a grey tile with the audio")
    func pinned() {
        let feeds = [Self.feed("a", share: true), Self.feed("b"), Self.feed("c", share: true), Self.feed("d")]
        let lineup = LivestreamLineup(pinned: [("a", PinState(cam: false, share: true)), ("b", PinState(cam: false, share: true)),
                                               ("c", PinState(cam: true, share: true)), ("d", PinState(cam: true))],
                                      all: ["a", "b", "c", "d"], cameraOff: ["d"])
        let sources = LivestreamEngine.sources(feeds: feeds, lineup: lineup)
        #expect(Self.describe(sources) == ["a:share+a", "b:cam+a", "c:cam+a", "c:share", "d:grey+a"])
        #expect(LivestreamEngine.layout(sources).sharing == ["a", "c"])
        // A pinned participant without a feed is not on it; one camera-off and silent has no tile.
        let silent = LivestreamEngine.sources(feeds: [Self.feed("d", audio: false)],
                                             lineup: LivestreamLineup(pinned: [("x", PinState(cam: true)), ("d", PinState(cam: true))], cameraOff: ["d"]))
        #expect(silent.isEmpty)
        #expect(LivestreamEngine.layout([]).sharing == nil)
    }
}
