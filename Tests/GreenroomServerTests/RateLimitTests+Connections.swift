import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension RateLimitTests {
    @Test("a user holds at most connectionsPerUser connections to a node, even when 20 upgrades arrive at once; others are let in, and a closed one frees a place")
    func connectionsPerUser() async throws {
        try await withServer({ $0.connectionsPerUser = 3 }) { server in
            let token = try await server.token("zed")
            // Twenty upgrades at once: exactly three get in.
            let attempts = try (0..<20).map { _ in try RawSocket(port: server.port) }
            let answers = try await withThrowingTaskGroup(of: (Int, (Int, String)).self) { group in
                for (index, socket) in attempts.enumerated() {
                    group.addTask { (index, try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"])) }
                }
                return try await group.reduce(into: [Int: (Int, String)]()) { $0[$1.0] = $1.1 }
            }
            var opened: [RawSocket] = []
            var refusals: [(code: Int, body: String)] = []
            for (index, socket) in attempts.enumerated() {
                guard let answer = answers[index] else { continue }
                if answer.0 == 101 { opened.append(socket) } else { refusals.append((answer.0, answer.1)) }
            }
            #expect(opened.count == 3 && refusals.count == 17, "\(opened.count) opened")
            for refusal in refusals {
                #expect(refusal.code == 429 && refusal.body.contains("rateLimited") && refusal.body.contains("retryAfterMs"), "\(refusal)")
            }

            // The check without an upgrade says the same; another user is let in.
            let (status, body) = try await server.rest("GET", "/v1/connect", key: token)
            #expect(status == 429 && body["error"]?["retryAfterMs"]?.numberValue != nil, "\(body)")
            let other = try await server.client("amy")
            #expect(other.connectionState == .connected)

            // A closed connection frees its place.
            opened.first?.cut()
            try await eventually("a place is free again") { try await server.rest("GET", "/v1/connect", key: token).0 == 200 }
            let again = try RawSocket(port: server.port)
            #expect(try await again.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            withExtendedLifetime((attempts, again)) {}
        }
    }
}
