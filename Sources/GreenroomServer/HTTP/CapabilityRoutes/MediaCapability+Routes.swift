import GreenroomProtocol
import Hummingbird
import ServiceLifecycle

extension MediaCapability: CapabilityRoutes {
    /// The media demo page at `/demo/`; the livestreams' playlists and segments at
    /// `/v1/livestreams/{stream}/{file}` for whoever may read the room (the session's token in
    /// `Authorization`, or `?token=` for players).
    func addRoutes(_ routes: RestRoutes) {
        DemoPage.addRoutes(to: routes.router)
        let tokens = routes.resourceTokens
        let livestreams = livestreams
        routes.group("/v1/livestreams", for: .userOrBackend).get("{stream}/{file}") { request, context in
            let name = try context.pathParameter("file")
            let stream = try context.pathParameter("stream")
            let identity = try context.caller()
            let url = try await livestreams.file(stream, name: name, identity: identity)
            return try await HLSResponse.make(request, file: url) {
                try await tokens.resourceToken(for: identity, scope: "/v1/livestreams/\(stream)/", ttl: HLSResponse.resourceTokenLifetime(duration: nil))
            }
        }
    }
}
