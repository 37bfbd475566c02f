import Foundation
import GreenroomProtocol
import Hummingbird
import NIOFoundationCompat

extension LiveEventsCapability: CapabilityRoutes {
    /// `/v1/live-events` for the app's backend (API key): the events with their state,
    /// hosts, counts and custom items, newest first; one ended.
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/live-events", for: .backend)
        let service = service
        group.get { request, _ in
            let query = request.uri.queryParameters
            let states = try query["state"].map { text -> [LiveEventState] in
                guard let state = LiveEventState(rawValue: String(text)) else {
                    throw GreenroomError(.invalidParameterValue, "unknown state \(text)")
                }
                return [state]
            }
            let args = LiveEventListArgs(states: states, createdBy: query["createdBy"].map(String.init),
                                         limit: try request.integerQuery("limit", in: 1...100), cursor: query["cursor"].map(String.init))
            return try jsonResponse(try await service.list(args))
        }
        group.get("{id}") { request, context in
            return try jsonResponse(try await service.get(try context.pathParameter("id")))
        }
        group.post("{id}/end") { request, context in
            return try jsonResponse(try await service.end(try context.pathParameter("id"), by: Identity.backendUserId))
        }
        group.post("{id}/recording/start") { request, context in
            struct Args: Decodable { var owner: String? }
            // The body may be left out: the video is then the event creator's.
            let body = try await request.body.collect(upTo: 64 * 1024)
            let args = body.readableBytes == 0 ? nil : try WireCoding.decode(Args.self, from: Data(buffer: body))
            return try jsonResponse(try await service.startRecording(try context.pathParameter("id"), by: Identity.backendUserId, owner: args?.owner))
        }
        group.post("{id}/recording/stop") { request, context in
            return try jsonResponse(try await service.stopRecording(try context.pathParameter("id"), by: Identity.backendUserId))
        }
    }
}
