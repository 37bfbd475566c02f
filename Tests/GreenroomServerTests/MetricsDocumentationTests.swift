import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Greenroom
import GreenroomProtocol
import Testing

/// The README's table of metrics is the operator's reference: it must name what a node
/// serves, as it serves it.
@Suite("The metrics' documentation", .wholeRun)
struct MetricsDocumentationTests {
    /// The metrics `server` serves at `/metrics` (with its API key), by name, with their
    /// types from the `# TYPE` lines.
    static func servedTypes(_ server: TestServer) async throws -> [String: String] {
        var request = URLRequest(url: server.url.appendingPathComponent("metrics"))
        request.setValue("Bearer \(server.apiKey)", forHTTPHeaderField: "Authorization")
        let (data, status) = try await HTTPTransport.data(for: request)
        #expect(status == 200)
        var served: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where line.hasPrefix("# TYPE ") {
            let words = line.split(separator: " ")
            if words.count == 4 { served[String(words[2])] = String(words[3]) }
        }
        return served
    }

    @Test("every metric /metrics serves is a row of the README's table with its type, and every row is served")
    func documented() async throws {
        try await withServer { server in
            // A command, so that the counter labelled by operation and outcome exists.
            let alice = try await server.client("alice")
            #expect(try await alice.send(UserOperation.me, args: EmptyResult()).id == "alice")
            let served = try await Self.servedTypes(server)
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
            var documented: [String: String] = [:]
            for line in readme.split(separator: "\n") where line.hasPrefix("| `greenroom_") {
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                documented[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[1]
            }
            #expect(served.count >= 19 && served["greenroom_commands_total"] == "counter")
            #expect(served == documented)
        }
    }
}
