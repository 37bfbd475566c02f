import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomMedia
@testable import GreenroomServer
import Testing

extension MediaNetworkTests {
    @Test("connection quality and auto: an SDK engine whose link loses a quarter of its UDP packets is rated poor for everyone (its own listener and the demo page outside), and its auto feed steps down a layer; clean again, it is rated excellent or good; its link down, lost; the page outside, rated too")
    func connectionQuality() async throws {
        try await Self.withRoaming("the connection quality test", outsideExtra: "&simulcast=1&width=960&height=540") { roaming in
            let page = try await roaming.there.open(secureOrigins: [roaming.origin])
            try await page.go(roaming.origin + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (client, meeting, recorder) = try await roaming.server.joined("sam", meeting: "roaming", as: "sam", mode: .RECV_ONLY)
            let media = await meeting.attachMedia(engine)
            try await eventually("the SDK's engine decodes the full layer outside", timeout: .seconds(60)) { try await engine.frameWidth() > 900 }
            let outside = try #require(meeting.participants.first { $0.id == "outside" })
            try await outside.setQuality(.auto)
            let fine: Set<String> = ["excellent", "good"]
            func rated(_ participant: String, _ accepted: Set<String>) async throws {
                try await recorder.wait("sam's listener hears \(participant) rated \(accepted.sorted())", timeout: .seconds(40)) { recorder in
                    recorder.calls.last { $0.hasPrefix("quality:\(participant):") }.map { accepted.contains(String($0.split(separator: ":")[2])) } ?? false
                }
                try await eventually("the page outside sees \(participant) rated \(accepted.sorted())", timeout: .seconds(20)) {
                    try await roaming.outside.run("return window.demo.state().qualities[\(try RawJSON.string(participant).jsonString())] || null")
                        .stringValue.map(accepted.contains) ?? false
                }
            }
            try await rated("sam", fine)
            try await rated("outside", fine)
            #expect(meeting.localParticipant.connectionQuality.map { fine.contains($0.rawValue) } == true)

            try await roaming.namespace.loseUDP(0.25)
            try await rated("sam", ["poor"])
            try await eventually("auto steps the feed received down a layer", timeout: .seconds(40)) { (1..<900).contains(try await engine.frameWidth()) }
            let lowered = try await engine.frameWidth()
            try await roaming.namespace.clearRules()
            try await rated("sam", fine)

            try await roaming.namespace.setLink(up: false)
            try await rated("sam", ["lost"])
            try await roaming.namespace.setLink(up: true)
            try await rated("sam", fine)
            let heard = await recorder.snapshot.filter { $0.hasPrefix("quality:sam:") }
            print("connection quality: sam rated \(heard.map { $0.split(separator: ":")[2] }); auto stepped down to \(lowered) wide")
            // Each change is told once: no two of the same rating in a row.
            #expect(zip(heard, heard.dropFirst()).allSatisfy { $0 != $1 })
            #expect(await media.lastError == nil)

            // Bad figures are refused, and a caller without media here is told so.
            let tooMuch = await refusal {
                _ = try await client.send(MediaOperation.reportStats, args: MediaStatsArgs(stream: "meeting:roaming", connected: true, packetLoss: 2))
            }
            #expect(tooMuch == .invalidParameterValue)
            let stranger = try await roaming.server.client("nina")
            let none = await refusal {
                _ = try await stranger.send(MediaOperation.reportStats, args: MediaStatsArgs(stream: "meeting:roaming", connected: true))
            }
            #expect(none == .notFound)
            await page.close()
        }
    }
}

/// The rating itself, without media: thresholds, a report gone stale, a `slowlink`.
@Suite("Connection quality ratings")
struct ConnectionQualityRatingTests {
    @Test("a report's worst figure rates it; not connected is lost")
    func ratings() {
        func rate(_ loss: Double?, _ roundTrip: Double?, _ jitter: Double?, connected: Bool = true) -> ConnectionQuality {
            ConnectionQuality.rate(MediaStatsArgs(stream: "meeting:m", connected: connected, packetLoss: loss, roundTrip: roundTrip, jitter: jitter))
        }
        #expect(rate(nil, nil, nil) == .excellent)
        #expect(rate(0.01, 0.05, 0.01) == .excellent)
        #expect(rate(0.03, 0.05, 0.01) == .good)
        #expect(rate(0.01, 0.3, 0.01) == .good)
        #expect(rate(0.01, 0.05, 0.05) == .good)
        #expect(rate(0.2, 0.05, 0.01) == .poor)
        #expect(rate(0, 0.7, 0) == .poor)
        #expect(rate(0, 0, 0.2) == .poor)
        #expect(rate(0, 0, 0, connected: false) == .lost)
    }

    @Test("a member is unrated before its first report, lost once its reports stop, poor while a slowlink holds")
    func memberQuality() {
        let now = Date()
        var member = MediaPlane.Member()
        #expect(MediaPlane.quality(of: member, now: now) == nil)
        member.report = MediaStatsArgs(stream: "meeting:m", connected: true, packetLoss: 0)
        member.reportedAt = now
        #expect(MediaPlane.quality(of: member, now: now) == .excellent)
        #expect(MediaPlane.quality(of: member, now: now + MediaPlane.reportsStaleAfter + 1) == .lost)
        member.slowlinkAt = now
        #expect(MediaPlane.quality(of: member, now: now + 1) == .poor)
        #expect(MediaPlane.quality(of: member, now: now + MediaPlane.slowlinkHolds + 1) == .excellent)
    }
}

extension MediaNetworkTests {
    @Test("a room's bitrate cap (serve --media-max-bitrate): a publisher's video is held to about the cap, where the same publisher sends more without one")
    func bitrateCap() async throws {
        guard let programs = MediaPrograms.find(for: "the bitrate cap test", browsers: true) else { return }
        let uncapped = try await Self.videoBitrate(programs, cap: nil)
        let capped = try await Self.videoBitrate(programs, cap: 64)
        print("bitrate cap: \(Int(uncapped / 1000)) kbps without a cap, \(Int(capped / 1000)) kbps with 64 kbps")
        #expect(capped <= 90_000, "the cap holds the video near 64 kbps: \(capped) bit/s")
        #expect(uncapped >= 2 * capped, "without the cap it sends more: \(uncapped) against \(capped) bit/s")
    }

    /// The video bitrate an SDK engine publishes at in a room of a server with the `cap`
    /// (kbps), measured by the browser over 5 s once the sender's estimate had 8 s to settle.
    private static func videoBitrate(_ programs: MediaPrograms, cap: Int?) async throws -> Double {
        try await withMediaServer(programs, { config in config.mediaNetwork.maxPublisherBitrate = cap }) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (_, meeting, _) = try await server.joined("paula", meeting: "capped", as: "paula", mode: .SEND_AND_RECV, mic: true, webcam: true)
            let media = await meeting.attachMedia(engine)
            try await eventually("the engine publishes", timeout: .seconds(60)) { await media.isPublishing }
            try await Task.sleep(for: .seconds(8))
            let first = try await engine.outbound()["video"] ?? [:]
            try await Task.sleep(for: .seconds(5))
            let second = try await engine.outbound()["video"] ?? [:]
            await page.close()
            func delta(_ key: String) -> Double { (second[key] ?? 0) - (first[key] ?? 0) }
            return delta("bytesSent") * 8 / max(delta("timestamp") / 1000, 0.001)
        }
    }
}
