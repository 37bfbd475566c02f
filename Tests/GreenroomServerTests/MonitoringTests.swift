import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Greenroom
@testable import GreenroomServer
import GreenroomProtocol
import Testing

/// The monitoring the repository ships (docs/monitoring/): alert rules checked by promtool,
/// loaded by a real Prometheus that scrapes a real node, and a Grafana dashboard whose every
/// query that Prometheus runs.
@Suite("Monitoring: Prometheus, its alert rules, the Grafana dashboard", .wholeRun)
struct MonitoringTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/monitoring")
    static var rules: String { folder.appendingPathComponent("greenroom-alerts.yml").path }

    /// promtool and prometheus from `GREENROOM_TEST_PROMTOOL` / `GREENROOM_TEST_PROMETHEUS`
    /// or `PATH`; `nil` after reporting the skip.
    static func tools(for what: String) -> (promtool: String, prometheus: String)? {
        if let promtool = TestEnvironment.program("GREENROOM_TEST_PROMTOOL", "promtool"),
           let prometheus = TestEnvironment.program("GREENROOM_TEST_PROMETHEUS", "prometheus") {
            return (promtool, prometheus)
        }
        Skips.skip(what, because: "prometheus and promtool are not on PATH (Debian: apt-get install prometheus), nor in GREENROOM_TEST_PROMETHEUS / GREENROOM_TEST_PROMTOOL")
        return nil
    }

    @Test("the alert rules pass promtool check rules, and their unit tests pass promtool test rules")
    func promtool() async throws {
        guard let tools = Self.tools(for: "the alert rules' check") else { return }
        let checked = try await ChildProcess.run(tools.promtool, ["check", "rules", Self.rules], limit: .seconds(60))
        let checkOutput = String(decoding: checked.output + checked.errors, as: UTF8.self)
        #expect(checked.exit == .exited(0) && checkOutput.contains("SUCCESS: 8 rules found"), "\(checkOutput)")
        // promtool reads the tests' rule_files relative to the test file.
        let tested = try await ChildProcess.run(tools.promtool, ["test", "rules", Self.folder.appendingPathComponent("greenroom-alerts.test.yml").path],
                                                limit: .seconds(60))
        let testOutput = String(decoding: tested.output + tested.errors, as: UTF8.self)
        #expect(tested.exit == .exited(0) && testOutput.contains("SUCCESS"), "\(testOutput)")
    }

    @Test("a real Prometheus scrapes a node with the API key, reads its connections, evaluates every alert rule, and runs every query of the Grafana dashboard; each metric they name is one the node serves")
    func prometheusScrapes() async throws {
        guard let tools = Self.tools(for: "the Prometheus scrape") else { return }
        try await withServer { server in
            let alice = try await server.client("alice")
            #expect(try await alice.send(UserOperation.me, args: EmptyResult()).id == "alice")
            let directory = TestServer.makeDataDirectory()
            let port = try await WebhookReceiver.freePort()
            let config = """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files:
                  - \(Self.rules)
                scrape_configs:
                  - job_name: greenroom
                    metrics_path: /metrics
                    authorization:
                      type: Bearer
                      credentials: \(server.apiKey)
                    static_configs:
                      - targets: ["127.0.0.1:\(server.port)"]
                """
            let configPath = directory + "/prometheus.yml"
            try config.write(toFile: configPath, atomically: true, encoding: .utf8)
            let prometheus = try await ChildProcess.start(tools.prometheus, arguments: [
                "--config.file=\(configPath)", "--storage.tsdb.path=\(directory)/data", "--web.listen-address=127.0.0.1:\(port)",
            ], errors: .kept(limit: 1 << 20))
            defer { prometheus.stopAndWait() }
            let api = "http://127.0.0.1:\(port)/api/v1/"
            func get(_ path: String, _ query: [URLQueryItem] = []) async throws -> RawJSON {
                var components = URLComponents(string: api + path)!
                if !query.isEmpty { components.queryItems = query }
                let (data, status) = try await HTTPTransport.data(for: URLRequest(url: components.url!))
                guard status == 200 else { return .nil }
                return try RawJSON(json: data)
            }
            try await eventually("Prometheus scrapes the node", timeout: .seconds(60)) {
                let targets = try? await get("targets")
                return targets?["data"]?["activeTargets"]?.arrayValue?.first?["health"]?.stringValue == "up"
            }
            try await eventually("Prometheus reads one connection", timeout: .seconds(30)) {
                let answer = try? await get("query", [URLQueryItem(name: "query", value: #"greenroom_connections{job="greenroom"}"#)])
                return answer?["data"]?["result"]?.arrayValue?.first?["value"]?.arrayValue?.last?.stringValue == "1"
            }
            try await eventually("every alert rule is evaluated without error", timeout: .seconds(30)) {
                let rules = (try? await get("rules"))?["data"]?["groups"]?.arrayValue?.flatMap { $0["rules"]?.arrayValue ?? [] } ?? []
                return rules.count == 8 && rules.allSatisfy { $0["health"]?.stringValue == "ok" }
            }
            // With the node up and nothing failing, no alert fires.
            let alerts = try await get("alerts")["data"]?["alerts"]?.arrayValue ?? [.nil]
            #expect(alerts.isEmpty, "\(alerts)")

            let dashboard = try RawJSON(json: Data(contentsOf: Self.folder.appendingPathComponent("greenroom-grafana.json")))
            let expressions = (dashboard["panels"]?.arrayValue ?? []).flatMap { $0["targets"]?.arrayValue ?? [] }.compactMap { $0["expr"]?.stringValue }
            #expect(expressions.count >= 20)
            for expression in expressions {
                let answer = try await get("query", [URLQueryItem(name: "query", value: expression)])
                #expect(answer["status"]?.stringValue == "success", "\(expression)")
            }
            // Every metric the rules and the dashboard name is one the node serves.
            let served = Set(try await MetricsDocumentationTests.servedTypes(server).keys)
            let text = try String(contentsOfFile: Self.rules, encoding: .utf8) + expressions.joined(separator: "\n")
            let named = Set(text.matches(of: /greenroom_[a-z_]+/).map { String($0.output) })
            #expect(named.count >= 15 && named.isSubset(of: served), "not served: \(named.subtracting(served).sorted())")
        }
    }
}
