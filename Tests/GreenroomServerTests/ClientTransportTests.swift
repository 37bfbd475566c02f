import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

/// The SDK's connection attempts against nodes that misbehave during the handshake: each
/// attempt ends (no attempt can hold the client forever), its socket is closed, and the
/// client goes on to a node that works.
@Suite("The SDK's connection attempts always end", .wholeRun)
struct ClientTransportTests {
    /// A client whose first URL is `stub` and whose second is the real server.
    private func client(first stub: StubListener, then server: TestServer, _ configure: (inout ClientConfiguration) -> Void = { _ in }) -> GreenroomClient {
        var config = ClientConfiguration(serverURL: stub.url)
        config.alternateServerURLs = [server.url]
        config.initialReconnectDelay = .milliseconds(50)
        config.maxReconnectDelay = .milliseconds(200)
        config.commandTimeout = .seconds(60)
        configure(&config)
        return server.track(GreenroomClient(configuration: config))
    }

    /// A client of `stub` alone, retrying quickly; not connected yet.
    private func client(only stub: StubListener, of server: TestServer, _ configure: (inout ClientConfiguration) -> Void = { _ in }) -> GreenroomClient {
        var config = ClientConfiguration(serverURL: stub.url)
        config.initialReconnectDelay = .milliseconds(20)
        config.maxReconnectDelay = .milliseconds(50)
        configure(&config)
        return server.track(GreenroomClient(configuration: config))
    }

    /// Publishes one event and checks that `client` receives it: the connection really works.
    private func expectWorking(_ client: GreenroomClient, on server: TestServer, stream: String) async throws {
        let subscription = try await client.subscribe(to: stream)
        try await server.server.publish(stream: stream, data: ["n": 1])
        let (events, _) = try await collect(subscription, count: 1)
        #expect(events.map(\.offset) == [1])
    }

    @Test("a node that hangs up before answering the upgrade is retried, and the next node is used")
    func hangUpBeforeUpgrade() async throws {
        try await withServer { server in
            let stub = try StubListener(.hangUp)
            defer { stub.stop() }
            // Only the broken node: the client keeps trying it (it used to wait forever after the first).
            let lonely = self.client(only: stub, of: server)
            lonely.connect(token: try await server.token("alice"), completion: nil)
            try await eventually("three attempts on the node that hangs up") { stub.accepted >= 3 }
            #expect(!lonely.connectionState.isConnected)
            await lonely.disconnect()

            // With a working node after it, the client ends up there.
            let before = stub.accepted
            let client = self.client(first: stub, then: server)
            try await client.connect(token: try await server.token("bob", grants: ["app:hangup"]))
            #expect(stub.accepted > before)
            try await expectWorking(client, on: server, stream: "app:hangup")
            await client.disconnect()
        }
    }

    @Test("a node that never answers is abandoned after the connect timeout; disconnecting ends an attempt at once")
    func silentNode() async throws {
        try await withServer { server in
            let stub = try StubListener(.silent)
            defer { stub.stop() }
            let client = self.client(first: stub, then: server) { $0.connectTimeout = .milliseconds(500) }
            try await client.connect(token: try await server.token("carol", grants: ["app:silent"]))
            #expect(stub.accepted >= 1)
            try await eventually("the abandoned attempt's socket is closed") { stub.closedByClient == stub.accepted }
            try await expectWorking(client, on: server, stream: "app:silent")
            await client.disconnect()

            // An attempt in progress (here it would wait a minute) ends when the app disconnects.
            let waiting = self.client(only: stub, of: server) { $0.connectTimeout = .seconds(60) }
            let accepted = stub.accepted
            waiting.connect(token: try await server.token("dave"), completion: nil)
            try await eventually("the attempt reached the silent node") { stub.accepted == accepted + 1 }
            await waiting.disconnect()
            #expect(waiting.connectionState == .disconnected(nil))
            try await eventually("the attempt's socket is closed", timeout: .seconds(10)) { stub.closedByClient == stub.accepted }
        }
    }

    @Test("a refused upgrade closes its socket, reads the server's error, and is retried")
    func refusedUpgradeClosesSocket() async throws {
        try await withServer { server in
            let stub = try StubListener(.refuse(status: 503, error: GreenroomError(.unavailable, "the node is draining")))
            defer { stub.stop() }
            let client = self.client(only: stub, of: server)
            client.connect(token: try await server.token("erin"), completion: nil)
            // `unavailable` means try again: attempts continue, and each refused socket is
            // closed by the client (they used to stay open, one per attempt).
            try await eventually("five refused attempts") { stub.accepted >= 5 }
            try await eventually("every refused socket closed by the client") { stub.closedByClient >= 5 }
            #expect(!client.connectionState.isConnected)
            await client.disconnect()
            try await eventually("nothing left open") { stub.closedByClient == stub.accepted }

            // The error in the refusal's body is read: a refused token makes the client ask
            // its provider for a fresh one before each new attempt.
            let strict = try StubListener(.refuse(status: 401, error: GreenroomError(.invalidToken, "the token's signature does not verify")))
            defer { strict.stop() }
            let refreshing = self.client(only: strict, of: server)
            let asked = Locked(0)
            let token = try await server.token("frank")
            refreshing.connect(token: token, tokenProvider: {
                asked.withLock { $0 += 1 }
                return token
            }, completion: nil)
            try await eventually("the provider asked three times") { asked.value >= 3 }
            #expect(strict.accepted >= 3)
            await refreshing.disconnect()
            try await eventually("no refused socket left open") { strict.closedByClient == strict.accepted }
        }
    }
}
