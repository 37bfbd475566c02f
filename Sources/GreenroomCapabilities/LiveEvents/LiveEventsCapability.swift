import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle

/// Live events (seed 000): the state machine, hosts and participants in the roster, custom
/// items and reactions; a live event's stream (`live:<id>`) is read by its hosts, its
/// creator and whoever is inside.
package struct LiveEventsCapability: Capability {
    package let service: LiveEventService
    package let logger: Logger

    package init(_ core: CapabilityContext) {
        service = LiveEventService(storage: core.storage, events: core.events, roster: core.roster, grace: core.configuration.reconnectGrace,
                                   media: core.media, livestreams: core.livestreams)
        core.media.register(.live, rules: service)
        core.livestreams.register(.live, owner: service)
        logger = core.logger
    }

    package var streamKind: StreamKind? { .live }

    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        try await service.authorizeRead(identity.userId, eventId: id)
    }

    package var rosterOwner: (any RosterOwner)? { service }
    package var services: [any Service] { [CountAnnouncer(what: "live event", flush: { [service] in try await service.flush() }, logger: logger)] }
}
