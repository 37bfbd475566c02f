import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage
import Logging

/// What the core lends every capability: storage and its one transactional path, the
/// roster, the settings, and the calls that reach connections.
package struct CapabilityContext: Sendable {
    package let configuration: ServerConfiguration
    package let storage: any GreenroomStorage
    /// The node's writer: every change goes through its transactions with its events.
    package let events: EventLog
    package let roster: Roster
    package let logger: Logger
    /// The node's metrics, for the capabilities that add their own.
    package let metrics: ServerMetrics
    /// The media control plane: rooms on the SFU, with the rules of their owners.
    package let media: MediaPlane
    /// The HLS livestreams of meetings and live events that this node runs.
    package let livestreams: LivestreamEngine
    /// Delivers the outbox's jobs: a capability adds the destinations it keeps.
    package let deliveries: OutboxDispatcher
    /// The server's HTTP clients for calling out.
    package let outbound: OutboundClients
    /// What each capability removes of a user deleted, in the deletion's transaction.
    package let userDeletion = UserDeletionHooks()

    /// What the composition root lends the capabilities it makes.
    package init(configuration: ServerConfiguration, storage: any GreenroomStorage, events: EventLog, roster: Roster, logger: Logger,
                 metrics: ServerMetrics, media: MediaPlane, livestreams: LivestreamEngine, deliveries: OutboxDispatcher,
                 outbound: OutboundClients) {
        self.configuration = configuration
        self.storage = storage
        self.events = events
        self.roster = roster
        self.logger = logger
        self.metrics = metrics
        self.media = media
        self.livestreams = livestreams
        self.deliveries = deliveries
        self.outbound = outbound
    }
}
