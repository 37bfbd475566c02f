import Foundation
import GreenroomProtocol
import Greenroom
@testable import GreenroomServer
import Testing

extension LifecycleTests {
    @Test("/ready: ready once the node listens; a shutdown makes it 503 draining at once while the node still serves its clients and admits new ones for the unready delay, then tells them to reconnect; a second shutdown ends the delay")
    func readiness() async throws {
        // A delay longer than the test could take, so that the node is sure to be still in it
        // on a loaded machine: the second shutdown below ends it.
        let server = try await TestServer.start { $0.unreadyDelay = 3_600 }
        let (ready, body) = try await server.rest("GET", "/ready")
        #expect(ready == 200 && body["status"]?.stringValue == "ready")
        let raw = try RawSocket(port: server.port)
        let token = try await server.token("watcher")
        #expect(try await raw.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
        try await eventually("the watcher is connected") { server.server.connectionCount == 1 }

        let stopping = Task { try await server.shutdown() }
        try await eventually("the node is unready") { (try? await server.rest("GET", "/ready"))?.0 == 503 }
        let (_, draining) = try await server.rest("GET", "/ready")
        #expect(draining["status"]?.stringValue == "draining")
        #expect(try await server.rest("GET", "/health").0 == 200, "alive while unready")
        // The delay is the load balancer's: the node still serves, and a client it admits
        // now is told to reconnect with the others afterwards.
        let alice = try await server.client("alice")
        #expect(try await alice.send(UserOperation.me, args: EmptyResult()).id == "alice")
        #expect(server.server.connectionCount == 2, "nobody was asked to go yet")
        #expect(server.server.core.readiness.state == .draining, "still waiting out the delay")
        try await withTimeout(.seconds(30), "a second shutdown ends the unready delay") {
            try await server.shutdown()
            try await stopping.value
        }
        #expect(try await raw.readUntilClosed(timeout: .seconds(10)) == CloseCode.serverRestarting.rawValue)
        await alice.disconnect()
    }

    @Test("the unready delay is refused when negative or over an hour")
    func unreadyDelayLimits() {
        var accepted = ServerConfiguration()
        accepted.unreadyDelay = 30
        #expect(throws: Never.self) { try accepted.validate() }
        for delay in [-1, 3_601, .nan] as [TimeInterval] {
            var config = ServerConfiguration()
            config.unreadyDelay = delay
            #expect(throws: GreenroomServerError.self) { try config.validate() }
        }
    }
}
