import GreenroomProtocol
import ServiceLifecycle

/// Live audio and video for meetings and live events, through the SFU: the signalling
/// operations (``MediaOperation``), checked against the rules the meetings and live events
/// register with the ``MediaPlane``; the SFU connection (and the Janus it runs) as services.
struct MediaCapability: CapabilityRoutes {
    let plane: MediaPlane
    let backend: MediaBackend
    let livestreams: LivestreamEngine

    init(_ core: CoreServices) {
        plane = core.media
        backend = core.mediaBackend
        livestreams = core.livestreams
    }

    var services: [any Service] { backend.services + [livestreams] }

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

    func connectionEnded(clientId: String) async {
        await plane.connectionEnded(clientId: clientId)
    }

    func registerOperations(_ router: inout CapabilityOperations) {
        let plane = plane
        router.on(MediaOperation.publish) { caller, args in try await plane.publish(args, caller: caller) }
        router.on(MediaOperation.unpublish) { caller, args in
            try await plane.unpublish(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.subscribe) { caller, args in try await plane.subscribe(args, caller: caller) }
        router.on(MediaOperation.unsubscribe) { caller, args in try await plane.unsubscribe(args, caller: caller) }
        router.on(MediaOperation.answer) { caller, args in
            try await plane.answer(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.trickle) { caller, args in
            try await plane.trickle(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.feeds) { caller, args in try await plane.feeds(args, caller: caller) }
        router.on(MediaOperation.leave) { caller, args in
            await plane.leave(args, caller: caller)
            return EmptyResult()
        }
    }
}
