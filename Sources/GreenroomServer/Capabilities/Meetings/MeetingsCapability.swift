import GreenroomProtocol
import Hummingbird

/// Stage meetings (seed 001): participants in the roster with their modes, media and pins,
/// admission by moderators, pub/sub; a meeting's stream (`meeting:<id>`) is read by its
/// participants' users and its moderators.
struct MeetingsCapability: Capability {
    let service: MeetingService

    init(_ core: CoreServices) {
        service = MeetingService(storage: core.storage, events: core.events, roster: core.roster, grace: core.configuration.reconnectGrace,
                                 participantLimit: core.configuration.meetingParticipantLimit, media: core.media)
        core.media.register(.meeting, rules: service)
    }

    var streamKind: StreamKind? { .meeting }

    func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        try await service.authorizeRead(identity, meetingId: id)
    }

    var rosterOwner: (any RosterOwner)? { service }

    /// `POST /v1/meetings` creates a meeting, `GET /v1/meetings/{id}` reads it with its
    /// participants (API key).
    func addRoutes(_ routes: RestRoutes) {
        let router = routes.router
        let auth = routes.auth
        let meetings = service
        router.post("/v1/meetings") { request, context in
            try auth.requireAPIKey(request)
            struct Args: Decodable { var meetingId: String? }
            let args = try await request.decode(as: Args.self, context: context)
            let meeting = try await meetings.create(args.meetingId ?? "m" + Secrets.randomHex(bytes: 8), by: "backend")
            return try jsonResponse(meeting, status: .created)
        }
        router.get("/v1/meetings/{id}") { request, context in
            try auth.requireAPIKey(request)
            return try jsonResponse(try await meetings.current(try context.parameters.require("id")))
        }
    }
}
