import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Media that recovers on a real network: a browser in a network namespace whose link the
/// test takes down and brings back with the ports its connections used dropped (as when a
/// NAT rebound them), so that only an ICE restart brings media back; and a link that loses
/// packets.
extension MediaNetworkTests {
    @Test("the SDK restarts ICE by itself: its engine's link goes down for 5 s and comes back with its old ports dropped; both connections come back through ICE restarts with fresh credentials and new ports, its feed id unchanged; it decodes the browser outside again and the browser outside decodes it again")
    func iceRestartAfterLinkLoss() async throws {
        try await Self.withRoaming("the SDK's ICE restart test") { roaming in
            let page = try await roaming.there.open(secureOrigins: [roaming.origin])
            try await page.go(roaming.origin + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (_, meeting, _) = try await roaming.server.joined("sam", meeting: "roaming", as: "sam", mode: .SEND_AND_RECV, mic: true, webcam: true)
            let media = await meeting.attachMedia(engine)
            try await roaming.outside.waitForMedia(from: "sam", what: "the browser outside decodes the SDK's engine")
            try await eventually("the SDK's engine decodes the browser outside", timeout: .seconds(60)) {
                try await engine.framesDecoded().values.reduce(0, +) > 10
            }
            let feed = try #require(await media.localFeed?.feedId)
            let receiving = try #require(try await engine.selectedLocal("sub"))
            let sending = try #require(try await engine.selectedLocal("pub"))
            #expect(await media.iceRestarts == 0)

            let stalled = try await roaming.cut(ports: [receiving.port, sending.port]) {
                try await engine.framesDecoded().values.reduce(0, +)
            }
            let back = ContinuousClock.now
            do {
                try await eventually("the SDK's engine decodes again", timeout: .seconds(60)) {
                    try await engine.framesDecoded().values.reduce(0, +) > stalled.decoded + 30
                }
            } catch {
                // What the SDK saw and did, and what the page's connections went through.
                Issue.record("""
                    the SDK's connection states \(await media.connectionStates), its ICE restarts \(await media.iceRestarts); \
                    the page's ICE changes [role, state, ms] and its clock now: \(await engine.iceHistory())
                    """)
                throw error
            }
            // Said, not checked (tests never time): the issue asks for the figure.
            print("ICE restart (SDK): the engine decodes again \(ContinuousClock.now - back) after its link came back")
            _ = try await roaming.outside.waitForMedia(from: "sam", after: stalled.outside + 20, what: "the browser outside decodes the SDK's engine again")

            #expect(await media.iceRestarts >= 2, "both connections restarted")
            #expect(await media.localFeed?.feedId == feed, "the same feed: no new media.publish")
            #expect(try await roaming.server.server.core.media.feeds(in: "meeting:roaming").map(\.feedId).contains(feed))
            let receivingNow = try #require(try await engine.selectedLocal("sub"))
            let sendingNow = try #require(try await engine.selectedLocal("pub"))
            #expect(receivingNow.ufrag != receiving.ufrag && sendingNow.ufrag != sending.ufrag, "fresh ICE credentials")
            #expect(receivingNow.port != receiving.port && sendingNow.port != sending.port, "new paths")
            let states = await media.connectionStates
            #expect(states[.publisher]?.isUp == true && states[.subscriber]?.isUp == true, "\(states)")
            await page.close()
        }
    }

    @Test("the demo page restarts ICE by itself the same way: its link down for 5 s, its old ports dropped, both its connections restarted, its feed id unchanged, decoding again both ways")
    func demoPageICERestart() async throws {
        try await Self.withRoaming("the demo page's ICE restart test") { roaming in
            let page = try await roaming.there.open(secureOrigins: [roaming.origin])
            try await page.go(try await roaming.server.demoURL("sam", meeting: "roaming", participant: "sam", mode: "SEND_AND_RECV",
                                                               host: roaming.namespace.hostAddress))
            try await roaming.outside.waitForMedia(from: "sam", what: "the browser outside decodes the page")
            let decoding = try await page.waitForMedia(from: "outside", what: "the page decodes the browser outside")
            let feed = try #require(try await page.run("return window.demo.state().myFeed").numberValue)
            let paths = try await page.run("return window.demo.paths()")
            let ports = try ["publish", "receive"].map { Int(try #require(paths[$0]?["port"]?.numberValue)) }

            let stalled = try await roaming.cut(ports: ports) { try await page.received(from: "outside").frames }
            let back = ContinuousClock.now
            _ = try await page.waitForMedia(from: "outside", after: max(stalled.decoded, decoding) + 20, what: "the page decodes again")
            print("ICE restart (demo page): the page decodes again \(ContinuousClock.now - back) after its link came back")
            _ = try await roaming.outside.waitForMedia(from: "sam", after: stalled.outside + 20, what: "the browser outside decodes the page again")
            let state = try await page.run("return window.demo.state()")
            #expect((state["iceRestarts"]?.numberValue ?? 0) >= 2, "both connections restarted: \(state["iceRestarts"] ?? .nil)")
            #expect(state["myFeed"]?.numberValue == feed, "the same feed")
            let now = try await page.run("return window.demo.paths()")
            #expect(try ["publish", "receive"].map { Int(try #require(now[$0]?["port"]?.numberValue)) } != ports, "new paths")
            await page.close()
        }
    }

    /// What an ICE restart test has: the namespace, the server (listening on its host end,
    /// Janus offering media only there), a browser outside on stage in meeting `roaming` as
    /// `outside`, and a chromedriver inside.
    struct Roaming {
        let namespace: NetworkNamespace
        let server: TestServer
        let outside: Browser
        let there: BrowserDriver

        /// The server's origin as browsers reach it.
        var origin: String { "http://\(namespace.hostAddress):\(server.port)" }

        /// Takes the link down for 5 seconds, drops the UDP `ports` inside used, and brings the
        /// link back; answers what `decoded` read then, and the frames the browser outside had
        /// decoded of `sam`.
        func cut(ports: [Int], decoded: () async throws -> Double) async throws -> (decoded: Double, outside: Double) {
            try await namespace.setLink(up: false)
            for port in ports { try await namespace.dropUDP(fromPort: port) }
            try await Task.sleep(for: .seconds(5))
            try await namespace.setLink(up: true)
            return (try await decoded(), try await outside.received(from: "sam").frames)
        }
    }

    /// Runs `body` with a ``Roaming`` (the page outside opened with `outsideExtra` added to its
    /// address; with a `delay`, the namespace behind a NAT and a link that holds every packet
    /// that long each way), and removes the namespace after it, whatever happens.
    static func withRoaming(_ what: String, outsideExtra: String = "", delay: Duration? = nil, _ body: (Roaming) async throws -> Void) async throws {
        guard let programs = MediaPrograms.find(for: what, browsers: true), let tools = NetworkNamespace.tools(for: what) else { return }
        let namespace = try await NetworkNamespace(tools: tools, delay: delay)
        do {
            try await withMediaServer(programs, { config in
                config.host = "0.0.0.0"
                config.mediaICEInterfaces = namespace.hostAddress
            }) { server in
                let here = try await BrowserDriver(programs: programs)
                defer { here.stop() }
                let there = try await BrowserDriver(programs: programs, namespace: namespace)
                defer { there.stop() }
                let origin = "http://\(namespace.hostAddress):\(server.port)"
                let outside = try await here.open(secureOrigins: [origin])
                try await outside.go(try await server.demoURL("olivia", meeting: "roaming", participant: "outside", mode: "SEND_AND_RECV",
                                                              extra: outsideExtra, host: namespace.hostAddress))
                try await body(Roaming(namespace: namespace, server: server, outside: outside, there: there))
                await outside.close()
            }
        } catch {
            await namespace.remove()
            throw error
        }
        await namespace.remove()
    }
}

extension MediaNetworkTests {
    @Test("5% of the UDP packets lost either way and 100 ms of delay each way on a receiver's link (behind a NAT, through a user-space delay line: this kernel has no netem): its video still decodes, retransmissions are asked for (NACK) and audio flows; the round trip, frame rate, losses, NACKs and keyframe requests are recorded")
    func lossyLink() async throws {
        try await Self.withRoaming("the packet loss and delay test", delay: .milliseconds(100)) { roaming in
            let page = try await roaming.there.open(secureOrigins: [roaming.origin])
            try await page.go(roaming.origin + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (_, meeting, _) = try await roaming.server.joined("sam", meeting: "roaming", as: "sam", mode: .RECV_ONLY)
            let media = await meeting.attachMedia(engine)
            try await eventually("the SDK's engine decodes the browser outside", timeout: .seconds(60)) {
                try await engine.framesDecoded().values.reduce(0, +) > 30
            }
            let clean = try await Self.sample(engine, seconds: 5)
            try await roaming.namespace.loseUDP(0.05)
            let lossy = try await Self.sample(engine, seconds: 10)
            let roundTrip = await engine.transportStats()?.roundTrip ?? 0
            // Said, not checked (tests never time): what the issue asks to record.
            print("packet loss and delay: round trip \(Int(roundTrip * 1000)) ms; \(clean.fps) fps before the loss, \(lossy.fps) fps with 5% loss; \(lossy.lost) packets lost, \(lossy.nacks) NACKs, \(lossy.plis) PLIs, \(lossy.audioBytes) audio bytes in 10 s")
            #expect(roundTrip >= 0.2, "the link holds each packet 100 ms each way: a round trip of \(roundTrip) s")
            #expect(lossy.lost > 0, "the rule dropped packets")
            #expect(lossy.frames > 30, "video decodes under loss: \(lossy.frames) frames in 10 s")
            #expect(lossy.nacks > 0, "the receiver asks for retransmissions")
            #expect(lossy.audioBytes > 10_000, "audio flows under loss")
            #expect(await media.lastError == nil)
            await page.close()
        }
    }

    /// What the engine's receiving connection got over `seconds`.
    private static func sample(_ engine: BrowserEngine, seconds: Int) async throws
        -> (frames: Double, fps: Double, lost: Double, nacks: Double, plis: Double, audioBytes: Double) {
        let start = try await engine.inbound()
        let began = ContinuousClock.now
        try await Task.sleep(for: .seconds(seconds))
        let end = try await engine.inbound()
        let elapsed = ContinuousClock.now - began
        func delta(_ kind: String, _ key: String) -> Double { (end[kind]?[key] ?? 0) - (start[kind]?[key] ?? 0) }
        let frames = delta("video", "framesDecoded")
        let span = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (frames, (frames / span * 10).rounded() / 10, delta("video", "packetsLost") + delta("audio", "packetsLost"),
                delta("video", "nackCount"), delta("video", "pliCount"), delta("audio", "bytesReceived"))
    }
}
