import GreenroomProtocol
import Hummingbird

extension AppStreamsCapability: CapabilityRoutes {
    /// `/v1/streams/{stream}/events`: the app's backend publishes to a user's private stream
    /// or an app stream, and reads any stream's log (API key).
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/streams", for: .backend)
        let events = events
        let storage = storage
        // The app's backend publishes its own events to a user's private stream or an app stream.
        group.post(":stream/events") { request, context in
            let args = try await request.decode(as: PublishArgs.self, context: context)
            let append = try Self.validated(stream: try context.pathParameter("stream"), args)
            let outcome = try await events.append(append)
            return try jsonResponse(outcome.event, status: outcome.duplicate ? .ok : .created)
        }
        // Many events, to any of those streams, in one request and one commit: all or none.
        routes.group("/v1/events", for: .backend).post { request, context in
            let batch = try await request.decode(as: BatchPublishArgs.self, context: context)
            guard (1...Self.maxBatch).contains(batch.events.count) else {
                throw GreenroomError(.invalidParameterValue, "events must hold 1–\(Self.maxBatch) events")
            }
            let appends = try batch.events.enumerated().map { index, item in
                do {
                    return try Self.validated(stream: item.stream, PublishArgs(type: item.type, data: item.data, idempotencyKey: item.idempotencyKey))
                } catch let error as GreenroomError {
                    throw GreenroomError(error.errorCode ?? .invalidParameterValue, "events[\(index)]: \(error.message)")
                }
            }
            let outcomes = try await events.transact { transaction in try await transaction.append(appends) }
            let results = outcomes.map { PublishResult(event: $0.event, duplicate: $0.duplicate) }
            return try jsonResponse(BatchPublishResult(results: results), status: .created)
        }
        group.get(":stream/events") { request, context in
            let stream = try context.pathParameter("stream")
            guard StreamName.isValid(stream) else { throw GreenroomError(.invalidParameterValue, "invalid stream name \(stream)") }
            let after = try request.integerQuery("after", in: 0...UInt64(Int64.max)) ?? 0
            let limit = try request.integerQuery("limit", in: 1...1000) ?? 100
            return try jsonResponse(try await storage.readEvents(stream: stream, after: after, limit: limit))
        }
    }
}
