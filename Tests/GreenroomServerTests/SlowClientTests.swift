import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

/// Connections that never prove who they are: they get so long, and so many of them.
@Suite("Strangers' connections: the header timeout and the cap", .wholeRun)
struct SlowClientTests {
    /// Opens a socket that sends part of a request's headers and nothing more.
    static func dribbler(_ port: Int) throws -> RawSocket {
        let socket = try RawSocket(port: port)
        try socket.write(Array("GET /v1/connect HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: web".utf8))
        return socket
    }

    @Test("1,000 sockets that dribble their headers are closed after the header timeout while a client beside them is served")
    func dribblersAreClosed() async throws {
        try await withServer({ $0.headerTimeout = 1; $0.maxPendingConnections = 2_000 }) { server in
            // Connected first: under a sanitizer its own upgrade could take longer than 1 s.
            let alice = try await server.client("alice")
            var sockets: [RawSocket] = []
            for _ in 0..<1_000 { sockets.append(try Self.dribbler(server.port)) }
            #expect(try await alice.currentUserController().currentUser().id == "alice")
            #expect(try await server.rest("GET", "/health").0 == 200)
            var open = 0
            for socket in sockets where try await !socket.readUntilEOF(timeout: .seconds(30)) { open += 1 }
            #expect(open == 0)
            #expect(try await alice.currentUserController().currentUser().id == "alice")
            // Every dribbler is counted; on a loaded machine another connection of the test's
            // (an HTTP client's, or the SDK's reconnection) may miss the 1 s too.
            let metrics = try await server.rest("GET", "/metrics").1.stringValue ?? ""
            let line = metrics.split(separator: "\n").first { $0.hasPrefix("greenroom_header_timeouts_total ") }
            let timedOut = line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            #expect(timedOut >= 1_000, "\(line ?? "no greenroom_header_timeouts_total")")
        }
    }

    @Test("while as many connections as the cap wait for their first request the server accepts no more, and serves those it has; once they go, the newcomer is served")
    func pendingConnectionsAreCapped() async throws {
        try await withServer({ $0.headerTimeout = 60; $0.maxPendingConnections = 20 }) { server in
            let alice = try await server.client("alice")
            var sockets: [RawSocket] = []
            for _ in 0..<20 { sockets.append(try Self.dribbler(server.port)) }
            try await eventually("20 connections wait for their headers, and accepting is paused") {
                server.server.core.openChannels.pendingCount == 20 && server.server.core.openChannels.isPaused
            }
            // Hummingbird's accept loop asks the listening channel for a read of its own when
            // it wants more connections (NIOAsyncChannel's back-pressure), whatever autoRead
            // says; on a loaded machine one comes during the pause. It must not let anyone in.
            try #require(server.server.core.openChannels.pausedListener).pipeline.read()
            // A newcomer waits in the backlog: its whole request gets no answer yet.
            let newcomer = try RawSocket(port: server.port)
            try newcomer.write(Array("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(try await newcomer.readAnswer(timeout: .milliseconds(500)).isEmpty)
            #expect(try await alice.currentUserController().currentUser().id == "alice")
            for socket in sockets { socket.cut() }
            let answer = try await newcomer.readAnswer(timeout: .seconds(10))
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            try await eventually("accepting again") { !server.server.core.openChannels.isPaused }
        }
    }
}
