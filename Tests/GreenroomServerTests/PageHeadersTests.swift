import Foundation
import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("The pages' security headers", .wholeRun)
struct PageHeadersTests {
    @Test("the console and the demo page, and their scripts, forbid framing, sniffing, foreign scripts and the Referer")
    func headers() async throws {
        try await withServer { server in
            for path in ["/console", "/demo", "/console/console.js", "/demo/demo.js"] {
                let (_, response) = try await URLSession.shared.data(from: URL(string: path, relativeTo: server.url)!)
                let http = try #require(response as? HTTPURLResponse)
                #expect(http.statusCode == 200, "\(path)")
                #expect(http.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff", "\(path)")
                #expect(http.value(forHTTPHeaderField: "Referrer-Policy") == "no-referrer", "\(path)")
                if !path.hasSuffix(".js") {
                    let policy = http.value(forHTTPHeaderField: "Content-Security-Policy") ?? ""
                    #expect(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'"), "\(path): \(policy)")
                    #expect(http.value(forHTTPHeaderField: "X-Frame-Options") == "DENY", "\(path)")
                }
            }
            #expect(try await server.rest("GET", "/metrics", key: "").0 == 401)
            #expect(try await server.rest("GET", "/metrics").0 == 200)
        }
    }
}
