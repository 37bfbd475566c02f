import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension RateLimitTests {
    @Test("uploads have a budget of their own: creating videos and appending chunks past it get 429 with Retry-After, while reads go on")
    func uploadsBudget() async throws {
        // A token a hundred seconds: however slowly a loaded machine runs the requests, none
        // comes back within the test.
        try await withServer({ $0.rateLimits.uploads = Rate(perSecond: 0.01, burst: 3) }) { server in
            let token = try await server.token("ursula", grants: VideoTests.allScopes)
            func send(_ method: String, _ path: String, _ body: Data = Data(), _ headers: [String: String] = [:]) async throws -> (Int, RawJSON) {
                try await VideoTests.send(server, token: token, method, path, body, headers)
            }
            let json = ["Content-Type": "application/json"]
            let (created, ticket) = try await send("POST", "/v1/videos", Data(#"{"title":"one"}"#.utf8), json)
            #expect(created == 201)
            let uploadId = try #require(ticket["uploadId"]?.stringValue)
            #expect(try await send("PATCH", "/v1/uploads/\(uploadId)", Data(repeating: 1, count: 10), ["Upload-Offset": "0"]).0 == 200)
            #expect(try await send("PATCH", "/v1/uploads/\(uploadId)", Data(repeating: 1, count: 10), ["Upload-Offset": "10"]).0 == 200)
            let (refused, body) = try await send("PATCH", "/v1/uploads/\(uploadId)", Data(repeating: 1, count: 10), ["Upload-Offset": "20"])
            #expect(refused == 429 && body["error"]?["name"]?.stringValue == "rateLimited" && (body["error"]?["retryAfterMs"]?.numberValue ?? 0) > 0, "\(refused) \(body)")
            #expect(try await send("POST", "/v1/videos", Data(#"{"title":"two"}"#.utf8), json).0 == 429)
            // Reads count against reads: the offset and the feed are answered.
            let (offset, held) = try await send("GET", "/v1/uploads/\(uploadId)")
            #expect(offset == 200 && held["offset"]?.numberValue == 20)
            #expect(try await send("GET", "/v1/videos").0 == 200)
        }
    }
}
