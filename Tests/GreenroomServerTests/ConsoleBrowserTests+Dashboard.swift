import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension ConsoleBrowserTests {
    @Test("the dashboard: every figure is a live chart drawn from /metrics and /v1/nodes; events sent while it watches show as events per second and a delivery latency; the node is listed with its connections; a screenshot")
    func dashboard() async throws {
        guard let programs = MediaPrograms.find(for: "the console's dashboard in a browser", browsers: true) else { return }
        try await withServer { server in
            let alice = try await server.client("alice", grants: ["app:ticks", "publish:app:ticks"])
            let bob = try await server.client("bob", grants: ["app:ticks"])
            _ = try await bob.subscribe(to: "app:ticks")
            let (status, nodes) = try await server.rest("GET", "/v1/nodes")
            #expect(status == 200 && nodes["items"]?.arrayValue?.first?["id"]?.stringValue == server.server.core.nodeId, "\(nodes)")
            #expect(try await server.rest("GET", "/v1/nodes", key: "grk_wrong").0 == 401)

            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let browser = try await driver.open()
            try await Self.signIn(browser, server)
            try await browser.run("window.console_.show('dashboard')")

            // Events flow while the dashboard reads: a few a second for its next readings.
            let publishing = Task {
                for index in 0..<200 {
                    guard !Task.isCancelled else { return }
                    try await alice.publish(to: "app:ticks", type: "tick", data: ["n": .number(Double(index))])
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
            defer { publishing.cancel() }
            func series(_ chart: String, _ name: String) async throws -> [Double] {
                let charts = try await browser.run("return window.console_.dashboard().charts").arrayValue ?? []
                let found = charts.first { $0["id"]?.stringValue == chart }?["series"]?.arrayValue?.first { $0["name"]?.stringValue == name }
                return found?["values"]?.arrayValue?.compactMap(\.numberValue) ?? []
            }
            try await eventually("events per second and a latency are drawn", timeout: .seconds(60)) {
                let delivered = try await series("events", "delivered"), appended = try await series("events", "appended")
                let p99 = try await series("latency", "p99")
                return delivered.contains { $0 > 0 } && appended.contains { $0 > 0 } && !p99.isEmpty
            }
            #expect(try await series("connections", server.server.core.nodeId).last == 2, "alice and bob on this node")
            let latency = try await series("latency", "p50")
            #expect(!latency.isEmpty && latency.allSatisfy { $0 >= 0 && $0 < 10_000 }, "\(latency)")
            for chart in ["connections", "events", "latency", "queues", "webhooks", "push", "media"] {
                let lines = try await browser.run("return document.querySelectorAll('figure[data-chart=\"\(chart)\"] svg polyline').length").numberValue ?? 0
                #expect(lines >= 1, "the \(chart) chart is drawn")
            }
            #expect(try await browser.run("return document.querySelector('tr[data-node] td:nth-child(2)').textContent").stringValue == "2")
            #expect(try await browser.run("return document.getElementById('error').textContent").stringValue == "")
            // A few readings more, so that the screenshot shows lines, with the charts in view.
            try await eventually("five readings", timeout: .seconds(60)) {
                try await browser.run("return window.console_.dashboard().samples").numberValue ?? 0 >= 5
            }
            try await browser.run("document.querySelector('.charts').scrollIntoView()")
            try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
            let picture = try await browser.screenshot()
            #expect(picture.count > 10_000 && picture.starts(with: [0x89, 0x50, 0x4E, 0x47]), "a PNG")
            try picture.write(to: Self.screenshots.appendingPathComponent("dashboard.png"))
            publishing.cancel()
        }
    }
}
