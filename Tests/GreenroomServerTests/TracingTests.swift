import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Tracing (issue 42): each command's span from its WebSocket frame through its write to
/// every node's delivery of its events, exported over OTLP/HTTP by swift-otel to a
/// collector (``OTLPReceiver`` here), and nothing made at all when it is not configured.
@Suite("Tracing over OTLP", .wholeRun)
struct TracingTests {
    /// Tracing to `receiver` at `endpoint`, exporting every 50 ms.
    static func tracing(_ endpoint: String, service: String = "greenroom") -> (inout ServerConfiguration) -> Void {
        { config in
            config.tracing.endpoint = endpoint
            config.tracing.serviceName = service
            config.tracing.json = true
            config.tracing.exportInterval = 0.05
        }
    }

    /// The spans of `receiver` once `condition` holds of them.
    static func spans(_ receiver: OTLPReceiver, until what: String,
                      _ condition: @escaping ([OTLPReceiver.ReceivedSpan]) -> Bool) async throws -> [OTLPReceiver.ReceivedSpan] {
        try await eventually(what) { condition(receiver.spans.value) }
        return receiver.spans.value
    }

    @Test("a published event: its command's span, its write's under it, its delivery's under that, in order; a refused command's span says why; a chat message's too")
    func oneNode() async throws {
        let receiver = OTLPReceiver()
        let endpoint = try await receiver.start()
        try await withServer(Self.tracing(endpoint, service: "greenroom-test")) { server in
            #expect(server.server.core.tracer != nil)
            let alice = try await server.client("alice", grants: ["publish:app:scores"])
            let bob = try await server.client("bob", grants: ["app:*"])
            let scores = try await bob.subscribe(to: "app:scores")
            let published = try await alice.publish(to: "app:scores", type: "goal", data: ["n": 1])
            _ = try await collect(scores, count: 1)

            let publish = StreamOperation.publish.name
            let spans = try await Self.spans(receiver, until: "the publish's three spans arrived") { spans in
                spans.contains { $0.name == publish } && spans.contains { $0.name == "store.write" }
                    && spans.contains { $0.name == "event.deliver" && $0.attributes["greenroom.stream"] == "app:scores" }
            }
            let command = try #require(spans.first { $0.name == publish })
            let write = try #require(spans.first { $0.name == "store.write" && $0.parentSpanId == command.spanId })
            let delivery = try #require(spans.first { $0.name == "event.deliver" && $0.parentSpanId == write.spanId })
            #expect(command.parentSpanId.isEmpty, "a command's span is the root of its trace")
            #expect(Set([command.traceId, write.traceId, delivery.traceId]).count == 1)
            #expect(command.service == "greenroom-test")
            #expect(command.attributes["rpc.method"] == publish && command.attributes["enduser.id"] == "alice")
            #expect(command.attributes["greenroom.outcome"] == "ok" && command.statusCode != 2)
            #expect(write.attributes["greenroom.events"] == "1")
            #expect(delivery.attributes["greenroom.offset"] == String(published.event.offset))
            #expect(delivery.attributes["greenroom.subscribers"] == "1", "bob follows the stream")
            #expect(delivery.attributes["greenroom.node"] == server.server.core.nodeId)
            // In time: the command begins, is written, then delivered, and ends after its write.
            #expect(command.start <= write.start && write.start <= write.end && write.end <= delivery.start)
            #expect(delivery.start <= delivery.end && write.end <= command.end)

            // A refusal: the command's span carries the error and no write is made for it.
            #expect(await refusal { try await alice.publish(to: "app:other", data: ["n": 2]) } == .permissionDenied)
            let refused = try await Self.spans(receiver, until: "the refused command's span arrived") { spans in
                spans.contains { $0.name == publish && $0.attributes["greenroom.outcome"] == ErrorCode.permissionDenied.name }
            }.first { $0.name == publish && $0.attributes["greenroom.outcome"] == ErrorCode.permissionDenied.name }
            #expect(refused?.statusCode == 2)
            let refusedId = refused?.spanId ?? "none"
            #expect(!receiver.spans.value.contains { $0.name == "store.write" && $0.parentSpanId == refusedId })

            // A chat message runs pipelined, in a task of its own: its trace is whole too.
            _ = try await alice.createChannel(id: "club", name: "Club")
            let club = alice.channelController(for: "club")
            try await club.synchronize()
            try await club.sendMessage(text: "traced")
            let send = ChatOperation.sendMessage.name
            let chat = try await Self.spans(receiver, until: "the chat message's spans arrived") { spans in
                guard let command = spans.first(where: { $0.name == send }),
                      let write = spans.first(where: { $0.name == "store.write" && $0.parentSpanId == command.spanId }) else { return false }
                return spans.contains { $0.name == "event.deliver" && $0.parentSpanId == write.spanId }
            }
            #expect(chat.contains { $0.name == send && $0.attributes["greenroom.outcome"] == "ok" })
            #expect(receiver.requests.value.allSatisfy { $0.path == "/v1/traces" && $0.contentType == "application/json" })
            await alice.disconnect()
            await bob.disconnect()
        }
        await receiver.stop()
    }

    @Test("a REST publish: its request's span, named by its route, joins the backend's trace from its traceparent, and is the parent of the write and the delivery; a refused request's span has its status; probes make none")
    func rest() async throws {
        let receiver = OTLPReceiver()
        let endpoint = try await receiver.start()
        try await withServer(Self.tracing(endpoint)) { server in
            let bob = try await server.client("bob", grants: ["app:*"])
            let scores = try await bob.subscribe(to: "app:scores")
            let backendTrace = "4bf92f3577b34da6a3ce929d0e0e4736", backendSpan = "00f067aa0ba902b7"
            let (status, _) = try await server.rest("POST", "/v1/streams/app:scores/events", body: ["type": "goal", "data": ["n": 1]],
                                                    headers: ["traceparent": "00-\(backendTrace)-\(backendSpan)-01"])
            #expect(status == 201)
            _ = try await collect(scores, count: 1)
            #expect(try await server.rest("GET", "/health").0 == 200)
            #expect(try await server.rest("POST", "/v1/streams/app:scores/events", body: ["type": "goal", "data": [:]], key: "wrong").0 == 401)

            let route = "POST /v1/streams/{stream}/events"
            let spans = try await Self.spans(receiver, until: "the REST publish's spans arrived") { spans in
                spans.filter { $0.name == route }.count == 2 && spans.contains { $0.name == "event.deliver" }
            }
            // OTLP/JSON as swift-otel writes it carries ids as protobuf's JSON does bytes: base64.
            func base64(_ hex: String) -> String {
                Data(stride(from: 0, to: hex.count, by: 2).compactMap { offset in
                    UInt8(hex.dropFirst(offset).prefix(2), radix: 16)
                }).base64EncodedString()
            }
            let request = try #require(spans.first { $0.name == route && $0.attributes["http.response.status_code"] == "201" })
            #expect(request.traceId == base64(backendTrace) && request.parentSpanId == base64(backendSpan), "\(request)")
            #expect(request.attributes["http.route"] == "/v1/streams/{stream}/events" && request.attributes["http.request.method"] == "POST")
            let write = try #require(spans.first { $0.name == "store.write" && $0.parentSpanId == request.spanId })
            let delivery = try #require(spans.first { $0.name == "event.deliver" && $0.parentSpanId == write.spanId })
            #expect(delivery.traceId == request.traceId && delivery.attributes["greenroom.subscribers"] == "1")
            let refused = try #require(spans.first { $0.name == route && $0.attributes["http.response.status_code"] == "401" })
            #expect(refused.attributes["greenroom.outcome"] == ErrorCode.invalidToken.name && refused.traceId != request.traceId, "\(refused)")
            #expect(!spans.contains { $0.attributes["http.route"] == "/health" || $0.name.hasSuffix("/health") })
            await bob.disconnect()
        }
        await receiver.stop()
    }

    @Test("by default the spans go as binary protobuf, and what is left is sent at shutdown")
    func protobufAtShutdown() async throws {
        let receiver = OTLPReceiver()
        let endpoint = try await receiver.start()
        let server = try await TestServer.start { config in
            Self.tracing(endpoint)(&config)
            config.tracing.json = false
            // Nothing would be sent before shutdown on its own.
            config.tracing.exportInterval = 3_600
        }
        let alice = try await server.client("alice", grants: ["publish:app:scores"])
        try await alice.publish(to: "app:scores", data: ["n": 1])
        await alice.disconnect()
        #expect(receiver.protobufBodies.value.isEmpty)
        try await server.shutdown()
        let bodies = receiver.protobufBodies.value
        #expect(!bodies.isEmpty, "the spans were sent as the server stopped")
        let sent = bodies.reduce(Data(), +)
        for name in [StreamOperation.publish.name, "store.write", "event.deliver"] {
            #expect(sent.range(of: Data(name.utf8)) != nil, "\(name) is in the export")
        }
        #expect(receiver.requests.value.allSatisfy { $0.path == "/v1/traces" && $0.contentType == "application/x-protobuf" })
        await receiver.stop()
    }

    @Test("off unless an endpoint is set: no tracer; an endpoint that is not an http(s) URL or a ratio past 1 is refused at start")
    func offByDefault() async throws {
        try await withServer { server in
            #expect(server.server.core.tracer == nil)
            #expect(!server.server.configuration.tracing.isEnabled)
        }
        for bad in ["GREENROOM_OTLP_ENDPOINT": "collector:4318", "GREENROOM_TRACE_SAMPLE_RATIO": "1.5", "GREENROOM_OTLP_JSON": "maybe"] {
            #expect(throws: (any Error).self, "\(bad.key)=\(bad.value)") {
                try ServerConfiguration.fromEnvironment([bad.key: bad.value])
            }
        }
        let config = try ServerConfiguration.fromEnvironment([
            "GREENROOM_OTLP_ENDPOINT": "http://127.0.0.1:4318", "GREENROOM_OTLP_SERVICE_NAME": "chat-eu",
            "GREENROOM_TRACE_SAMPLE_RATIO": "0.25", "GREENROOM_OTLP_EXPORT_SECONDS": "2", "GREENROOM_OTLP_JSON": "1",
        ])
        #expect(config.tracing.endpoint == "http://127.0.0.1:4318" && config.tracing.serviceName == "chat-eu")
        #expect(config.tracing.sampleRatio == 0.25 && config.tracing.exportInterval == 2 && config.tracing.json)
    }

    @Test("two nodes on PostgreSQL: the write on one node and the delivery on the other are one trace, through the notification")
    func acrossNodes() async throws {
        let receiver = OTLPReceiver()
        let endpoint = try await receiver.start()
        do {
            try await Self.acrossNodes(receiver: receiver, endpoint: endpoint)
        } catch {
            await receiver.stop()
            throw error
        }
        await receiver.stop()
    }

    /// Two nodes on a fresh database, both tracing to `receiver`.
    private static func acrossNodes(receiver: OTLPReceiver, endpoint: String) async throws {
        let cluster = MultiNodeTests()
        try await cluster.withCluster { url, directory in
            let one = try await TestServer.start(dataDirectory: directory) { config in
                config.databaseURL = url
                Self.tracing(endpoint, service: "node-one")(&config)
            }
            let two = try await TestServer.start(dataDirectory: directory) { config in
                config.databaseURL = url
                Self.tracing(endpoint, service: "node-two")(&config)
            }
            // The delivery on node two is traced through the notification's traceparent; an
            // event read from the log instead (a node whose listener is not yet up) has none.
            try await cluster.waitForListeners(url, nodes: 2)
            let alice = try await one.client("alice", grants: ["publish:app:room", "app:room"])
            let bob = try await two.client("bob", grants: ["app:room"])
            let onOne = try await alice.subscribe(to: "app:room")
            let onTwo = try await bob.subscribe(to: "app:room")
            let published = try await alice.publish(to: "app:room", type: "say", data: ["text": "hello"])
            _ = try await collect(onOne, "the event on the writing node") { !$0.isEmpty }
            _ = try await collect(onTwo, "the event on the other node") { !$0.isEmpty }

            let offset = String(published.event.offset)
            // Each span is exported when it ends, and the command's ends with its reply,
            // which may come after both deliveries: wait for all four.
            let spans = try await Self.spans(receiver, until: "the command's, the write's and both nodes' delivery spans arrived") { spans in
                Set(spans.filter { $0.name == "event.deliver" && $0.attributes["greenroom.offset"] == offset }.map(\.service)) == ["node-one", "node-two"]
                    && spans.contains { $0.name == StreamOperation.publish.name && $0.service == "node-one" }
                    && spans.contains { $0.name == "store.write" && $0.service == "node-one" }
            }
            let command = try #require(spans.first { $0.name == StreamOperation.publish.name && $0.service == "node-one" })
            let write = try #require(spans.first { $0.name == "store.write" && $0.parentSpanId == command.spanId })
            let deliveries = spans.filter { $0.name == "event.deliver" && $0.attributes["greenroom.offset"] == offset }
            #expect(deliveries.count == 2)
            for delivery in deliveries {
                #expect(delivery.traceId == command.traceId && delivery.parentSpanId == write.spanId, "\(delivery)")
                #expect(delivery.attributes["greenroom.subscribers"] == "1")
            }
            #expect(deliveries.first { $0.service == "node-two" }?.attributes["greenroom.node"] == two.server.core.nodeId)
            #expect(deliveries.first { $0.service == "node-one" }?.attributes["greenroom.node"] == one.server.core.nodeId)
            await alice.disconnect()
            await bob.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
