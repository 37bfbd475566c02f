import GreenroomProtocol
import Hummingbird

/// App streams (`app:<name>`): the app's own events, published by its backend over REST and
/// read by the users whose token grants the stream (`app:scores`, or `app:*`).
struct AppStreamsCapability: Capability {
    let events: EventLog
    let storage: any GreenroomStorage

    init(_ core: CoreServices) {
        events = core.events
        storage = core.storage
    }

    var streamKind: StreamKind? { .app }

    /// A user reads an app stream its token grants.
    func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        let stream = StreamKind.app.stream(id)
        guard identity.has(stream) else {
            throw GreenroomError(.permissionDenied, "the token does not grant \(stream)")
        }
    }

    /// `/v1/streams/{stream}/events`: the app's backend publishes to a user's private stream
    /// or an app stream, and reads any stream's log (API key).
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.router.group("/v1/streams")
        let auth = routes.auth
        let events = events
        let storage = storage
        // The app's backend publishes its own events to a user's private stream or an app stream.
        group.post(":stream/events") { request, context in
            try auth.requireAPIKey(request)
            let stream = try context.parameters.require("stream")
            let kind = StreamKind(of: stream)
            guard StreamName.isValid(stream), kind == .user || kind == .app, kind.id(in: stream)?.isEmpty == false else {
                throw GreenroomError(.invalidParameterValue, "the app may publish to user:ID or app:NAME streams")
            }
            let args = try await request.decode(as: PublishArgs.self, context: context)
            let type = args.type ?? "app.event"
            guard (1...64).contains(type.count) else { throw GreenroomError(.invalidParameterValue, "type must be 1–64 characters") }
            let size = try args.data.jsonData().count
            guard size <= Limits.maxClientFrameBytes else {
                throw GreenroomError(.payloadTooLarge, "event data is \(size) bytes; the limit is \(Limits.maxClientFrameBytes)")
            }
            let outcome = try await events.append(EventAppend(stream: stream, type: type, data: args.data, idempotencyKey: args.idempotencyKey))
            return try jsonResponse(outcome.event, status: outcome.duplicate ? .ok : .created)
        }
        group.get(":stream/events") { request, context in
            try auth.requireAPIKey(request)
            let stream = try context.parameters.require("stream")
            guard StreamName.isValid(stream) else { throw GreenroomError(.invalidParameterValue, "invalid stream name \(stream)") }
            let after = try request.integerQuery("after", in: 0...UInt64(Int64.max)) ?? 0
            let limit = try request.integerQuery("limit", in: 1...1000) ?? 100
            return try jsonResponse(try await storage.readEvents(stream: stream, after: after, limit: limit))
        }
    }
}
