import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle

/// Stage meetings (seed 001): participants in the roster with their modes, media and pins,
/// admission by moderators, pub/sub; a meeting's stream (`meeting:<id>`) is read by its
/// participants' users and its moderators.
package struct MeetingsCapability: Capability {
    package let service: MeetingService
    package let logger: Logger

    package init(_ core: CapabilityContext) {
        logger = core.logger
        service = MeetingService(storage: core.storage, events: core.events, roster: core.roster, grace: core.configuration.reconnectGrace,
                                 participantLimit: core.configuration.meetingParticipantLimit,
                                 persistedPerTopic: core.configuration.pubSubPersistedPerTopic, media: core.media,
                                 livestreams: core.livestreams)
        core.media.register(.meeting, rules: service)
        core.livestreams.register(.meeting, owner: service)
    }

    package var streamKind: StreamKind? { .meeting }

    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        try await service.authorizeRead(identity, meetingId: id)
    }

    package var rosterOwner: (any RosterOwner)? { service }
    package var services: [any Service] { [CountAnnouncer(what: "meeting", flush: { [service] in try await service.flush() }, logger: logger)] }

}
