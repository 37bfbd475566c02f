import Foundation
import GreenroomProtocol
import Hummingbird

extension ServerCore {
    /// The REST routes: health, metrics, users and app events (API key), and the
    /// WebSocket upgrade at `/v1/connect`.
    func buildRouter() -> Router<GreenroomRequestContext> {
        let router = Router(context: GreenroomRequestContext.self)
        router.add(middleware: ErrorMiddleware(core: self))
        router.get("/health") { _, _ in
            try jsonResponse(["status": "ok"])
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: .init(string: self.metrics.exposition())))
        }
        addUserRoutes(router.group("/v1/users"))
        addStreamRoutes(router.group("/v1/streams"))
        addConnectRoute(router)
        addVideoRoutes(router)
        router.post("/v1/meetings") { request, context in
            try self.requireAPIKey(request)
            struct Args: Decodable { var meetingId: String? }
            let args = try await request.decode(as: Args.self, context: context)
            let meeting = try await self.meetings.create(args.meetingId ?? "m" + Secrets.randomHex(bytes: 8), by: "backend")
            return try jsonResponse(meeting, status: .created)
        }
        router.get("/v1/meetings/{id}") { request, context in
            try self.requireAPIKey(request)
            return try jsonResponse(try await self.meetings.current(try context.parameters.require("id")))
        }
        router.post("/v1/connections/disconnect") { request, context in
            try self.requireAPIKey(request)
            struct Args: Decodable { var userId: String?; var cut: Bool? }
            let args = try await request.decode(as: Args.self, context: context)
            let count = self.disconnect(
                userId: args.userId, code: args.cut == true ? nil : .serverRestarting,
                reason: "disconnected by the operator: reconnect and resume")
            return try jsonResponse(["disconnected": count])
        }
        return router
    }

    /// Checks the app backend's API key (`Authorization: Bearer KEY`).
    func requireAPIKey(_ request: Request) throws {
        let header = request.headers[.authorization]
        let given: String? =
            if let header, header.lowercased().hasPrefix("bearer ") { String(header.dropFirst(7)) } else { nil }
        guard let given, !given.isEmpty else {
            throw GreenroomError(.notAuthenticated, "this endpoint needs the server API key (Authorization: Bearer KEY)")
        }
        guard constantTimeEqual(given, secrets.apiKey) else {
            throw GreenroomError(.invalidToken, "the API key is not this server's")
        }
    }

    func addUserRoutes(_ group: RouterGroup<GreenroomRequestContext>) {
        group.post { request, context in
            try self.requireAPIKey(request)
            let args = try await request.decode(as: UserUpdateArgs.self, context: context)
            return try jsonResponse(try await self.users.create(args), status: .created)
        }
        group.get { request, _ in
            try self.requireAPIKey(request)
            let query = request.uri.queryParameters
            let ids = query["ids"].map { $0.split(separator: ",").map(String.init) }
            let limit = try query["limit"].map { text -> Int in
                guard let value = Int(String(text)) else { throw GreenroomError(.invalidParameterValue, "limit must be a number") }
                return value
            }
            let args = UserListArgs(ids: ids, nicknamePrefix: query["nicknamePrefix"].map(String.init), limit: limit, cursor: query["cursor"].map(String.init))
            return try jsonResponse(try await self.users.list(args))
        }
        group.get(":id") { request, context in
            try self.requireAPIKey(request)
            return try jsonResponse(try await self.users.get(try context.parameters.require("id")))
        }
        group.put(":id") { request, context in
            try self.requireAPIKey(request)
            let args = try await request.decode(as: UserUpdateArgs.self, context: context)
            return try jsonResponse(try await self.users.update(try context.parameters.require("id"), args))
        }
        group.patch(":id") { request, context in
            try self.requireAPIKey(request)
            let args = try await request.decode(as: UserPartialUpdateArgs.self, context: context)
            return try jsonResponse(try await self.users.partialUpdate(try context.parameters.require("id"), args))
        }
        group.delete(":id") { request, context in
            try self.requireAPIKey(request)
            let id = try context.parameters.require("id")
            try await self.users.delete(id)
            for connection in self.connections.of(user: id) {
                connection.requestClose(.forbidden, reason: "the user was deleted")
            }
            return Response(status: .noContent)
        }
    }

    func addStreamRoutes(_ group: RouterGroup<GreenroomRequestContext>) {
        // The app's backend publishes its own events to a user's private stream or an app stream.
        group.post(":stream/events") { request, context in
            try self.requireAPIKey(request)
            let stream = try context.parameters.require("stream")
            let kind = StreamName.split(stream).kind
            guard StreamName.isValid(stream), kind == "user" || kind == "app", !StreamName.split(stream).id.isEmpty else {
                throw GreenroomError(.invalidParameterValue, "the app may publish to user:ID or app:NAME streams")
            }
            let args = try await request.decode(as: PublishArgs.self, context: context)
            let type = args.type ?? "app.event"
            guard (1...64).contains(type.count) else { throw GreenroomError(.invalidParameterValue, "type must be 1–64 characters") }
            let size = try args.data.jsonData().count
            guard size <= Limits.maxClientFrameBytes else {
                throw GreenroomError(.payloadTooLarge, "event data is \(size) bytes; the limit is \(Limits.maxClientFrameBytes)")
            }
            let outcome = try await self.events.append(EventAppend(stream: stream, type: type, data: args.data, idempotencyKey: args.idempotencyKey))
            return try jsonResponse(outcome.event, status: outcome.duplicate ? .ok : .created)
        }
        group.get(":stream/events") { request, context in
            try self.requireAPIKey(request)
            let stream = try context.parameters.require("stream")
            guard StreamName.isValid(stream) else { throw GreenroomError(.invalidParameterValue, "invalid stream name \(stream)") }
            let after = UInt64(request.uri.queryParameters["after"].map(String.init) ?? "0") ?? 0
            let limit = min(Int(request.uri.queryParameters["limit"].map(String.init) ?? "100") ?? 100, 1000)
            return try jsonResponse(try await self.storage.readEvents(stream: stream, after: after, limit: max(limit, 1)))
        }
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
