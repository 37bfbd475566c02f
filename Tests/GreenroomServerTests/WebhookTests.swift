import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

/// Webhooks to the app's backend: signed, at least once, in order per stream, through
/// failures, restarts and several nodes; a real HTTP receiver on loopback.
@Suite("Webhooks: events POSTed to the app's backend", .wholeRun)
struct WebhookTests {
    /// Fast retries for tests: 50 ms doubling to 200 ms, a 1 s timeout.
    static func quickRetries(_ config: inout ServerConfiguration, attempts: Int = 100) {
        config.webhooks.timeout = 1
        config.webhooks.retryBase = 0.05
        config.webhooks.retryCap = 0.2
        config.webhooks.maxAttempts = attempts
        config.webhooks.allowPrivateAddresses = true   // the receiver is on loopback
    }

    /// A metric's value from the server's exposition.
    static func metric(_ server: TestServer, _ name: String) -> Double {
        server.server.metrics.exposition().split(separator: "\n").first { $0.hasPrefix(name + " ") }
            .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Checks that every stream's events were first handled in offset order.
    static func expectOrdered(_ handled: [WebhookEvent], sourceLocation: SourceLocation = #_sourceLocation) {
        for (stream, events) in Dictionary(grouping: handled, by: \.stream) {
            let offsets = events.map(\.offset)
            #expect(offsets == offsets.sorted(), "\(stream) out of order: \(offsets)", sourceLocation: sourceLocation)
        }
    }

    @Test("every event arrives signed and in order per stream through refused connections, 500s and timeouts; one that fails every attempt is parked, listed and replayed; bad registrations are refused")
    func deliveryThroughFailures() async throws {
        // Every stream's first event is refused from its publication until the receiver
        // is up, a few seconds on a loaded machine: the attempts (about 0.2 s apart) must
        // outlast that, or a first event that should arrive is parked.
        let attempts = 60
        try await withServer({ Self.quickRetries(&$0, attempts: attempts) }) { server in
            // Registering: checked input, the API key, the secret shown once.
            #expect(try await server.rest("POST", "/v1/webhooks", body: ["url": "ftp://example.com/x"]).0 == 400)
            #expect(try await server.rest("POST", "/v1/webhooks", body: ["url": "http://127.0.0.1:1/x", "events": ["mess*age"]]).0 == 400)
            #expect(try await server.rest("POST", "/v1/webhooks", body: ["url": "http://127.0.0.1:1/x"], key: "wrong").0 == 401)
            let port = try await WebhookReceiver.freePort()
            let (created, body) = try await server.rest("POST", "/v1/webhooks", body: [
                "url": .string("http://127.0.0.1:\(port)/hooks"), "events": ["app.*", "message.*", "channel.added"],
            ])
            #expect(created == 201, "\(body)")
            let endpoint = try body.decode(as: WebhookEndpoint.self)
            let secret = try #require(endpoint.secret)
            #expect(secret.hasPrefix("whsec_") && endpoint.events == ["app.*", "message.*", "channel.added"])
            let listed = try await server.rest("GET", "/v1/webhooks").1.decode(as: WebhookEndpointList.self)
            #expect(listed.endpoints.map(\.id) == [endpoint.id] && listed.endpoints.allSatisfy { $0.secret == nil })

            // Events while nothing listens: every attempt is refused.
            func item(_ stream: String, _ n: Int, _ fail: String? = nil) -> RawJSON {
                var data: [String: RawJSON] = ["n": .number(Double(n))]
                if let fail { data["fail"] = .string(fail) }
                return ["stream": .string(stream), "type": "app.event", "data": .dictionary(data)]
            }
            var items: [RawJSON] = []
            for n in 1...15 {
                items.append(item("app:a", n, n == 4 ? "500" : nil))
                items.append(item("app:b", n, n == 7 ? "timeout" : nil))
            }
            items.append(item("app:c", 1, "always"))
            items.append(item("app:c", 2))
            let (published, answer) = try await server.rest("POST", "/v1/events", body: ["events": .array(items)])
            #expect(published == 201, "\(answer)")
            let alice = try await server.client("alice")
            _ = try await server.client("bob")
            let channel = try await alice.createChannel(id: "hooked", name: "Hooked", members: ["bob"])
            let room = alice.channelController(for: channel.id)
            for text in ["one", "two", "three"] { _ = try await room.sendMessage(text: text) }
            try await eventually("attempts are refused while nothing listens") { Self.metric(server, "greenroom_webhook_failures_total") >= 3 }

            // The backend comes up: the first three attempts of some events fail (500, a
            // stall past the timeout); one event fails every attempt.
            let receiver = WebhookReceiver { event, before in
                switch event.data["fail"]?.stringValue {
                case "500" where before < 3: .status(500)
                case "timeout" where before < 3: .stall(.milliseconds(1_500))
                case "always": .status(500)
                default: .status(200)
                }
            }
            receiver.secret.withLock { $0 = secret }
            try await receiver.start(port: port)
            defer { Task { await receiver.stop() } }
            let expected = 15 + 15 + 1 + 1 + 3 // app:a, app:b, app:c's second, bob's channel.added, three messages
            try await eventually("every event but the parked one arrives", timeout: .seconds(60)) { receiver.handled.count >= expected }
            let handled = receiver.handled
            #expect(handled.count == expected)
            #expect(Set(handled.map(\.id)).count == handled.count)
            #expect(Set(handled.map(\.type)) == ["app.event", "channel.added", "message.new"])
            #expect(handled.filter { $0.stream == "app:a" }.map { $0.data["n"]?.numberValue } == (1...15).map(Double.init))
            #expect(handled.filter { $0.stream == "app:b" }.map { $0.data["n"]?.numberValue } == (1...15).map(Double.init))
            #expect(handled.filter { $0.type == "message.new" }.map { $0.data["message"]?["text"]?.stringValue } == ["one", "two", "three"])
            Self.expectOrdered(handled)
            let arrivals = receiver.arrivals.value
            #expect(arrivals.allSatisfy { $0.verified }, "a signature did not check out")
            // The failing ones were tried again, numbered: three failures, then the success.
            // (Their streams' earlier events came first, so the receiver saw every attempt.)
            for fail in ["500", "timeout"] {
                let tries = arrivals.filter { $0.event.data["fail"]?.stringValue == fail }
                #expect(tries.map(\.attempt) == [1, 2, 3, 4], "\(fail): \(tries.map(\.attempt))")
            }
            #expect(arrivals.filter { $0.event.data["fail"]?.stringValue == "500" }.map(\.answered) == [500, 500, 500, 200])

            // The one that failed every attempt is parked; the stream went on past it.
            try await eventually("the failing delivery is parked") {
                try await server.rest("GET", "/v1/webhooks/\(endpoint.id)/parked").1.decode(as: WebhookDeliveryPage.self).items.count == 1
            }
            let parked = try await server.rest("GET", "/v1/webhooks/\(endpoint.id)/parked").1.decode(as: WebhookDeliveryPage.self).items[0]
            #expect(parked.attempts == attempts && parked.lastError == "HTTP 500" && parked.event.stream == "app:c" && parked.event.offset == 1)
            // (Its first attempts were refused before the receiver was up; it saw the last ones.)
            #expect(receiver.arrivals.value.filter { $0.event.id == parked.id }.map(\.attempt).last == attempts)
            #expect(Self.metric(server, "greenroom_webhook_parked_total") == 1)
            #expect(Self.metric(server, "greenroom_webhook_retries_total") >= Double(attempts))
            #expect(Self.metric(server, "greenroom_webhook_deliveries_total") >= Double(expected))

            // Replayed once the backend is fixed: it arrives, and nothing is parked.
            receiver.script.withLock { $0 = { _, _ in .status(200) } }
            let (replayStatus, replayed) = try await server.rest("POST", "/v1/webhooks/\(endpoint.id)/replay", body: ["deliveryId": .string(parked.id)])
            #expect(replayStatus == 200 && replayed["replayed"]?.numberValue == 1, "\(replayed)")
            try await eventually("the replayed delivery arrives") { receiver.handled.contains { $0.id == parked.id } }
            #expect(try await server.rest("GET", "/v1/webhooks/\(endpoint.id)/parked").1.decode(as: WebhookDeliveryPage.self).items.isEmpty)
            #expect(try await server.rest("POST", "/v1/webhooks/\(endpoint.id)/replay", body: ["deliveryId": "app:c/x/9"]).0 == 404)

            // Removed: nothing more is sent to it.
            #expect(try await server.rest("DELETE", "/v1/webhooks/\(endpoint.id)").0 == 204)
            #expect(try await server.rest("GET", "/v1/webhooks/\(endpoint.id)").0 == 404)
            let before = receiver.arrivals.value.count
            _ = try await room.sendMessage(text: "unheard")
            try await Task.sleep(for: .seconds(1))
            #expect(receiver.arrivals.value.count == before)
        }
    }

    @Test("SIGKILL with deliveries pending: after the restart, every event arrives, in order, from the endpoint set by configuration")
    func survivesKill() async throws {
        let directory = TestServer.makeDataDirectory()
        let port = try await WebhookReceiver.freePort()
        let secret = "test-secret-0123456789"
        // Nothing listens until the restart, so every attempt of the first node fails: with
        // 100 attempts at most a second apart, none is parked (which would keep it from
        // the restarted node) unless the sends and the kill take a minute and a half.
        let environment = [
            "GREENROOM_WEBHOOK_URL": "http://127.0.0.1:\(port)/hooks", "GREENROOM_WEBHOOK_SECRET": secret, "GREENROOM_WEBHOOK_ALLOW_PRIVATE": "1",
            "GREENROOM_WEBHOOK_EVENTS": "message.new", "GREENROOM_WEBHOOK_TIMEOUT_SECONDS": "1",
            "GREENROOM_WEBHOOK_RETRY_SECONDS": "0.05", "GREENROOM_WEBHOOK_RETRY_CAP_SECONDS": "1", "GREENROOM_WEBHOOK_MAX_ATTEMPTS": "100",
        ]
        let arguments = ["--port", "0", "--data-dir", directory]
        let (first, base) = try await CLI.serve(arguments, environment: environment)
        let token = try await CLI.run(["token", "alice", "--data-dir", directory]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let alice = GreenroomClient(configuration: ClientConfiguration(serverURL: base))
        try await alice.connect(token: token)
        let channel = try await alice.createChannel(id: "killed", name: "Killed", members: [])
        let room = alice.channelController(for: channel.id)
        for n in 1...20 { _ = try await room.sendMessage(text: "m\(n)") }
        first.process.send(SIGKILL)
        try await first.waitForExit()
        await alice.disconnect()

        let receiver = WebhookReceiver()
        receiver.secret.withLock { $0 = secret }
        try await receiver.start(port: port)
        let (second, _) = try await CLI.serve(arguments, environment: environment)
        try await eventually("every message arrives after the restart", timeout: .seconds(60)) { receiver.handled.count >= 20 }
        #expect(receiver.handled.map { $0.data["message"]?["text"]?.stringValue } == (1...20).map { "m\($0)" })
        #expect(receiver.arrivals.value.allSatisfy { $0.verified })
        second.process.send(SIGTERM)
        try await second.waitForExit()
        await receiver.stop()
    }

    @Test("two nodes on PostgreSQL: events written on both arrive once each, in order per stream, never sent by both at once")
    func twoNodes() async throws {
        guard let admin = await TestEnvironment.postgres(for: "the two-node webhook test") else { return }
        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        let directory = TestServer.makeDataDirectory()
        let receiver = WebhookReceiver()
        let port = try await receiver.start()
        do {
            let one = try await TestServer.start(dataDirectory: directory) { $0.databaseURL = url; Self.quickRetries(&$0) }
            let two = try await TestServer.start(dataDirectory: directory) { $0.databaseURL = url; Self.quickRetries(&$0) }
            let (status, body) = try await one.rest("POST", "/v1/webhooks", body: ["url": .string("http://127.0.0.1:\(port)/hooks"), "events": ["app.*"]])
            #expect(status == 201)
            receiver.secret.withLock { $0 = (try? body.decode(as: WebhookEndpoint.self).secret) ?? "" }
            // The other node learns of the endpoint within a second.
            try await Task.sleep(for: .seconds(2))
            for n in 1...40 {
                let node = n % 2 == 0 ? one : two
                let stream = "app:s\(n % 4)"
                #expect(try await node.rest("POST", "/v1/streams/\(stream)/events", body: ["type": "app.event", "data": ["n": .number(Double(n))]]).0 == 201)
            }
            try await eventually("all 40 events arrive", timeout: .seconds(60)) { receiver.handled.count >= 40 }
            try await Task.sleep(for: .seconds(1))
            let arrivals = receiver.arrivals.value
            #expect(arrivals.count == 40, "each event once: \(arrivals.count) arrivals")
            #expect(receiver.overlaps.value == 0)
            #expect(arrivals.allSatisfy { $0.verified })
            Self.expectOrdered(receiver.handled)
            // Both nodes delivered some (each takes the streams it finds free).
            let delivered = [one, two].map { Self.metric($0, "greenroom_webhook_deliveries_total") }
            #expect(delivered.reduce(0, +) == 40, "\(delivered)")
            try await one.shutdown()
            try await two.shutdown()
        } catch {
            await receiver.stop()
            await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
            throw error
        }
        await receiver.stop()
        await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
    }

    @Test("an endpoint for every type hears each capability: chat messages and members, users, live events, meetings, videos")
    func everyCapability() async throws {
        try await withServer({ Self.quickRetries(&$0) }) { server in
            let receiver = WebhookReceiver()
            let port = try await receiver.start()
            defer { Task { await receiver.stop() } }
            let (status, body) = try await server.rest("POST", "/v1/webhooks", body: ["url": .string("http://127.0.0.1:\(port)/all")])
            #expect(status == 201)
            let endpoint = try body.decode(as: WebhookEndpoint.self)
            #expect(endpoint.events == ["*"])
            receiver.secret.withLock { $0 = endpoint.secret ?? "" }

            // Chat: a channel with bob, a message written, edited and deleted, bob leaves.
            let alice = try await server.client("alice")
            let bob = try await server.client("bob")
            let channel = try await alice.createChannel(id: "everything", name: "Everything", members: ["bob"])
            let room = alice.channelController(for: channel.id)
            let message = try await room.sendMessage(text: "hi")
            _ = try await room.editMessage(messageId: message.id, text: "hi there")
            _ = try await room.deleteMessage(messageId: message.id)
            try await bob.channelController(for: channel.id).leave()
            // Users: the backend renames bob.
            #expect(try await server.rest("PATCH", "/v1/users/bob", body: ["set": ["nickname": "Bobby"]]).0 == 200)
            // A live event from start to end.
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = ["alice"]
            let live = try await alice.createLiveEvent(config: params)
            try await live.enterAsHost()
            try await live.setEventReady()
            try await live.startEvent()
            try await live.endEvent()
            // A meeting joined, left and ended.
            let (_, meeting, _) = try await server.joined("carol", meeting: "hooks", as: "carol", mode: .SEND_AND_RECV, grants: ["allow_mod"])
            let (_, other, _) = try await server.joined("dave", meeting: "hooks", as: "dave", mode: .SEND_AND_RECV)
            try await other.leave()
            try await meeting.end()
            // A video created and deleted.
            let creator = try await server.token("erin", grants: [VideoScope.create, VideoScope.delete])
            let (created, video) = try await server.rest("POST", "/v1/videos", body: ["title": "clip"], key: creator)
            #expect(created == 201, "\(video)")
            let videoId = try #require(video["video"]?["id"]?.stringValue, "\(video)")
            #expect(try await server.rest("DELETE", "/v1/videos/\(videoId)", key: creator).0 == 204)

            let wanted: Set<String> = [
                "channel.added", "message.new", "message.updated", "message.deleted", "member.left", "user.updated",
                "live.started", "live.ended", "live.hostEntered", "meeting.participantJoined", "meeting.participantLeft",
                "meeting.ended", "video.created", "video.deleted",
            ]
            do {
                try await eventually("every capability's events arrive") { wanted.isSubset(of: Set(receiver.handled.map(\.type))) }
            } catch {
                Issue.record("missing: \(wanted.subtracting(receiver.handled.map(\.type)).sorted())")
                throw error
            }
            #expect(receiver.arrivals.value.allSatisfy { $0.verified })
            Self.expectOrdered(receiver.handled)
        }
    }
}
