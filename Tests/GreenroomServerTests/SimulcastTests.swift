import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Simulcast (issue 39): a browser sends its camera in three layers through a real Janus,
/// and a receiver chooses the one it gets.
@Suite("Simulcast: the layer each receiver chooses", .serialized, .wholeRun)
struct SimulcastTests {
    @Test("a publisher sends a 960×540 camera in three layers; a receiver that asks low as soon as it decodes gets the smallest (frame width from getStats), then high the largest and medium the middle one; a feed it does not receive is refused")
    func qualityChoice() async throws {
        guard let programs = MediaPrograms.find(for: "the simulcast test", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let publisher = try await driver.open()
            try await publisher.go(try await server.demoURL("paula", meeting: "layers", participant: "paula", mode: "SEND_AND_RECV",
                                                            extra: "&simulcast=1&width=960&height=540"))
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (client, meeting, _) = try await server.joined("sam", meeting: "layers", as: "sam", mode: .RECV_ONLY)
            _ = await meeting.attachMedia(engine)
            try await eventually("the receiver decodes the publisher", timeout: .seconds(60)) { try await engine.frameWidth() > 0 }
            let paula = try #require(meeting.participants.first { $0.id == "paula" })
            var widths: [String: Double] = [:]
            for (quality, accepted) in [(MediaQuality.low, 200.0...300), (.high, 900...1000), (.medium, 440...520)] {
                try await paula.setQuality(quality)
                do {
                    try await eventually("\(quality) is received", timeout: .seconds(60)) { accepted.contains(try await engine.frameWidth()) }
                } catch {
                    let sent = (try? await publisher.run("return window.demo.sent()")).map { "\($0)" } ?? "?"
                    Issue.record("asked \(quality), receives \(try await engine.frameWidth()) wide; the publisher sends \(sent)")
                    throw error
                }
                widths[quality.rawValue] = try await engine.frameWidth()
            }
            print("simulcast: frame widths \(widths)")
            let error = await refusal {
                _ = try await client.send(MediaOperation.configure, args: MediaConfigureArgs(stream: "meeting:layers", feed: 1, quality: .low))
            }
            #expect(error == .notFound)
            await page.close()
            await publisher.close()
        }
    }
}
