import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension RateLimitTests {
    @Test("a command refused for its rate holds the connection's next command for the wait it names: a flood is read no faster than its budget lets it act")
    func refusalHoldsTheNextCommand() async throws {
        try await withServer({ $0.rateLimits.writes = Rate(perSecond: 0.1, burst: 1) }) { server in
            let owner = try await server.client("hal")
            _ = try await owner.createChannel(id: "held", name: "Held", isPublic: true)
            let socket = try RawSocket(port: server.port)
            let token = try await server.token("hal")
            #expect(try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            // The burst went on the channel; the next send is refused with a wait of about ten
            // seconds (however long the steps before took), and the read behind it waits for
            // the longest hold, half a second.
            try socket.sendText(#"{"id":1,"op":"message.send","args":{"channelId":"held","text":"over"}}"#)
            try socket.sendText(#"{"id":2,"op":"user.me"}"#)
            let clock = ContinuousClock()
            let refused = try await socket.readText()
            let refusedAt = clock.now
            #expect(refused.contains(#""re":1"#) && refused.contains("rateLimited"), "\(refused)")
            let named = try JSONSerialization.jsonObject(with: Data(refused.utf8)) as? [String: Any]
            let retryAfterMs = (named?["error"] as? [String: Any])?["retryAfterMs"] as? Int ?? 0
            #expect(retryAfterMs > 1_000, "\(refused)")
            let answered = try await socket.readText()
            let held = clock.now - refusedAt
            #expect(answered.contains(#""re":2"#) && !answered.contains("error"), "\(answered)")
            // A lower bound the server enforces: a slow machine only makes it longer.
            #expect(held >= .milliseconds(400), "the read was answered \(held) after the refusal")
        }
    }
}
