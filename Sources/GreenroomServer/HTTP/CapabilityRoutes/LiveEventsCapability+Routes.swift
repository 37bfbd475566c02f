import GreenroomProtocol
import Hummingbird

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
    }
}
