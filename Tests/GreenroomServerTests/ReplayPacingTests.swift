import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// A replay is paced by the socket and held to the same outbound limits as live events.
@Suite("Replays held to the outbound limit", .wholeRun)
struct ReplayPacingTests {
    @Test("a client that replays a full log of large events and never reads holds at most its outbound queue, and is closed as a slow consumer though it keeps sending")
    func replayOfANonReader() async throws {
        try await withServer({ $0.outboundQueueLimit = 32; $0.heartbeatInterval = 1 }) { server in
            let filler = String(repeating: "x", count: 48_000)
            for index in 0..<400 {
                try await server.server.publish(stream: "app:big", data: ["n": .number(Double(index)), "filler": .string(filler)])
            }
            let token = try await server.token("reader", grants: ["app:big"])
            let socket = try RawSocket(port: server.port, receiveBufferBytes: 4_096)
            #expect(try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            try socket.sendText(#"{"id":1,"op":"stream.subscribe","args":{"stream":"app:big","since":{"offset":0}}}"#)
            try await eventually("the connection is open") { server.server.connectionCount == 1 }
            let connection = try #require(server.server.core.connections.all.first)
            // Pings all along: the client is heard, but it reads nothing.
            try await eventually("the non-reader is closed", timeout: .seconds(60)) {
                try? socket.sendFrame(opcode: 9, payload: [])
                try await Task.sleep(for: .milliseconds(100))
                return server.server.connectionCount == 0
            }
            #expect(connection.peakQueuedFrames <= 32, "\(connection.peakQueuedFrames) frames waited at once")
        }
    }
}
