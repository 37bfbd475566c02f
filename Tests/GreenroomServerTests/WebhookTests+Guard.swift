import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension WebhookTests {
    /// The first parked delivery of `endpoint`, once there is one.
    static func firstParked(_ server: TestServer, _ endpoint: String) async throws -> RawJSON {
        var parked: RawJSON?
        try await eventually("a delivery to \(endpoint) is parked") {
            parked = try await server.rest("GET", "/v1/webhooks/\(endpoint)/parked").1["items"]?[0]
            return parked != nil
        }
        return parked ?? .nil
    }

    @Test("by default no webhook reaches a loopback, link-local, private or mapped address: an IP is refused at registration, a name that resolves to one at each attempt, and nothing is sent")
    func privateAddressesRefused() async throws {
        try await withServer({ Self.quickRetries(&$0, attempts: 2); $0.webhooks.allowPrivateAddresses = false }) { server in
            let receiver = WebhookReceiver()
            let port = try await receiver.start()
            defer { Task { await receiver.stop() } }
            for host in ["127.0.0.1", "127.9.9.9", "169.254.169.254", "10.1.2.3", "172.20.0.1", "192.168.0.10", "100.64.0.1",
                         "0.0.0.0", "[::1]", "[::ffff:127.0.0.1]", "[fd00::1]", "[fe80::1]"] {
                let (status, body) = try await server.rest("POST", "/v1/webhooks", body: ["url": .string("http://\(host):\(port)/hooks")])
                #expect(status == 400 && body["error"]?["name"]?.stringValue == "invalidParameterValue", "\(host): \(status) \(body)")
            }
            let (created, body) = try await server.rest("POST", "/v1/webhooks", body: ["url": .string("http://localhost:\(port)/hooks")])
            #expect(created == 201, "\(body)")
            let endpoint = try body.decode(as: WebhookEndpoint.self)
            #expect(try await server.rest("POST", "/v1/streams/app:guard/events", body: ["type": "app.ping", "data": ["n": 1]]).0 == 201)
            let parked = try await Self.firstParked(server, endpoint.id)
            let reason = parked["lastError"]?.stringValue ?? ""
            #expect(reason.contains("refused") && reason.contains("loopback"), "\(parked)")
            #expect(receiver.arrivals.value.isEmpty)
        }
    }

    @Test("a webhook follows no redirect: the endpoint's 307 fails the attempt and the address it names hears nothing")
    func noRedirects() async throws {
        try await withServer({ Self.quickRetries(&$0, attempts: 2) }) { server in
            let target = WebhookReceiver()
            let targetPort = try await target.start()
            let redirecting = WebhookReceiver { _, _ in .redirect("http://127.0.0.1:\(targetPort)/stolen") }
            let port = try await redirecting.start()
            defer { Task { await target.stop(); await redirecting.stop() } }
            let (created, body) = try await server.rest("POST", "/v1/webhooks", body: ["url": .string("http://127.0.0.1:\(port)/hooks")])
            #expect(created == 201, "\(body)")
            let endpoint = try body.decode(as: WebhookEndpoint.self)
            #expect(try await server.rest("POST", "/v1/streams/app:guard/events", body: ["type": "app.ping", "data": ["n": 1]]).0 == 201)
            let parked = try await Self.firstParked(server, endpoint.id)
            #expect(parked["lastError"]?.stringValue == "HTTP 307", "\(parked)")
            #expect(redirecting.arrivals.value.count == 2)
            #expect(target.arrivals.value.isEmpty)
        }
    }
}
