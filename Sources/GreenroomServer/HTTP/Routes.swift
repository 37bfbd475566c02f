import Foundation
import GreenroomProtocol
import Hummingbird

extension ServerCore {
    /// Records the gauges read when the metrics are (``ServerMetrics/sample(writerQueue:mediaRooms:livestreams:)``).
    func sampleMetrics() {
        metrics.sample(writerQueue: events.queued, mediaRooms: media.roomCount, livestreams: livestreams.count)
    }

    /// The REST routes: health, metrics, the WebSocket upgrade at `/v1/connect`, the
    /// operator's disconnect, and every capability's own.
    func buildRouter() -> Router<GreenroomRequestContext> {
        let router = Router(context: GreenroomRequestContext.self)
        // Outside the error middleware: a refusal's span gets its status and error name.
        if let tracer { router.add(middleware: RestTracingMiddleware(tracer: tracer)) }
        router.add(middleware: ErrorMiddleware(logger: logger))
        router.get("/health") { _, _ in
            try jsonResponse(["status": "ok"])
        }
        // For load balancers: 503 while the node starts and once it drains (Readiness).
        router.get("/ready") { _, _ in
            let state = self.readiness.state
            return try jsonResponse(["status": state.rawValue], status: state == .ready ? .ok : .serviceUnavailable)
        }
        router.get("/openapi.json") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: .init(string: OpenAPIDocument.json + "\n")))
        }
        let routes = RestRoutes(router: router, authentication: authenticator, resourceTokens: tokens)
        // With the API key (Prometheus: `authorization: {credentials: KEY}`), unless the
        // operator made it public: the figures tell who is connected and how busy it is.
        let metrics = configuration.publicMetrics ? router.group("/metrics") : routes.group("/metrics", for: .backend)
        metrics.get { _, _ in
            self.sampleMetrics()
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                            body: .init(byteBuffer: .init(string: self.metrics.exposition())))
        }
        sessions.addConnectRoute(router)
        for case let capability as any CapabilityRoutes in capabilities { capability.addRoutes(routes) }
        addUploadRoutes(routes)
        // This node's WebSocket connections (each node answers for its own).
        let nodeConnections = routes.group("/v1/connections", for: .backend)
        nodeConnections.get { _, _ in
            let connections = self.connections.all.map { connection in
                NodeConnections.Connection(clientId: self.roster.clientId(connectionId: connection.id), userId: connection.identity.userId)
            }.sorted { $0.clientId < $1.clientId }
            return try jsonResponse(NodeConnections(node: self.nodeId, connections: connections))
        }
        // The nodes sharing this node's store, as their heartbeats last said.
        routes.group("/v1/nodes", for: .backend).get { _, _ in
            try jsonResponse(NodeList(items: try await NodeHeartbeatService.listed(by: self)))
        }
        nodeConnections.post("disconnect") { request, context in
            struct Args: Decodable { var userId: String?; var cut: Bool? }
            let args = try await request.decode(as: Args.self, context: context)
            let count = self.connections.disconnect(
                userId: args.userId, code: args.cut == true ? nil : .serverRestarting,
                reason: "disconnected by the operator: reconnect and resume")
            return try jsonResponse(["disconnected": count])
        }
        return router
    }
}

extension Request {
    /// The `cursor` query parameter as a record cursor, if given. - Throws: `invalidParameterValue`.
    func cursorQuery() throws -> RecordCursor? {
        try uri.queryParameters["cursor"].map { try RecordCursor.decode(String($0)) }
    }

    /// The query parameter `name` as a whole number (`nil` when absent), within `range`
    /// when one is given. - Throws: `invalidParameterValue` for anything else, however large.
    func integerQuery<Value: FixedWidthInteger>(_ name: String, in range: ClosedRange<Value>? = nil) throws -> Value? {
        try RequestParsing.integer(uri.queryParameters[Substring(name)].map(String.init), name: name, in: range)
    }
}

/// Compares secrets in time independent of where they first differ.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8), y = Array(b.utf8)
    guard x.count == y.count else { return false }
    var diff: UInt8 = 0
    for i in x.indices { diff |= x[i] ^ y[i] }
    return diff == 0
}

/// `GET /v1/connections`: the WebSocket connections of the node that answers.
struct NodeConnections: Codable, Sendable {
    /// One connection.
    struct Connection: Codable, Sendable {
        /// Its id across nodes.
        var clientId: String
        /// Its user.
        var userId: String
    }

    /// The node's id.
    var node: String
    /// Its connections, by client id.
    var connections: [Connection]
}
