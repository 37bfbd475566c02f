import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle

/// Chat channels (seeds 002 and 003): channels, members and invitations, operators,
/// messages and reactions; a channel's stream (`channel:<id>`) is read by its members.
package struct ChatCapability: Capability {
    package let service: ChatService
    private let logger: Logger

    package init(_ core: CapabilityContext) {
        service = ChatService(storage: core.storage, events: core.events, memberLimit: core.configuration.channelMemberLimit,
                              channelsPerUser: core.configuration.channelsPerUser, receiptBatchMembers: core.configuration.receiptBatchMembers)
        logger = core.logger
        core.userDeletion.add { deletion, transaction in
            try await ChatService.forget(deletion, in: transaction)
            return nil
        }
    }

    package var streamKind: StreamKind? { .channel }

    /// Announces the receipts of big channels, batched, once a second.
    package var services: [any Service] {
        [CountAnnouncer(what: "chat receipt", flush: { [service] in try await service.flushReceipts() }, logger: logger)]
    }

    /// A channel's joined members read its stream.
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        _ = try await ChatService.channel(service.storage, ChannelId(id))
        _ = try await ChatService.requireJoined(service.storage, ChannelId(id), identity.userId)
    }
}
