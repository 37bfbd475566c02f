import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Chat channels (seeds 002 and 003): channels, members and invitations, operators,
/// messages and reactions; a channel's stream (`channel:<id>`) is read by its members.
package struct ChatCapability: Capability {
    package let service: ChatService

    package init(_ core: CapabilityContext) {
        service = ChatService(storage: core.storage, events: core.events, memberLimit: core.configuration.channelMemberLimit,
                              channelsPerUser: core.configuration.channelsPerUser)
        core.userDeletion.add { deletion, transaction in
            try await ChatService.forget(deletion, in: transaction)
            return nil
        }
    }

    package var streamKind: StreamKind? { .channel }

    /// A channel's joined members read its stream.
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        _ = try await ChatService.channel(service.storage, ChannelId(id))
        _ = try await ChatService.requireJoined(service.storage, ChannelId(id), identity.userId)
    }
}
