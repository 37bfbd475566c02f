import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle

/// Chat channels (seeds 002 and 003): channels, members and invitations, operators,
/// messages and reactions; a channel's stream (`channel:<id>`) is read by its members.
package struct ChatCapability: Capability, UploadHosting {
    package let service: ChatService
    /// Attachments: their uploads, reading and sweeping.
    package let files: ChatFiles
    private let logger: Logger

    package init(_ core: CapabilityContext) {
        let configuration = core.configuration
        let directory = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("files", isDirectory: true)
        service = ChatService(storage: core.storage, events: core.events, memberLimit: configuration.channelMemberLimit,
                              channelsPerUser: configuration.channelsPerUser, receiptBatchMembers: configuration.receiptBatchMembers,
                              fileDirectory: directory)
        files = ChatFiles(storage: core.storage, events: core.events, directory: directory, maxBytes: configuration.fileMaxBytes,
                          types: configuration.fileTypes, bytesPerUser: configuration.fileBytesPerUser,
                          unsentPerUser: configuration.filePendingPerUser,
                          tools: MediaTools.locate(ffprobe: configuration.ffprobePath, ffmpeg: configuration.ffmpegPath))
        logger = core.logger
        core.userDeletion.add { deletion, transaction in
            try await ChatService.forget(deletion, in: transaction)
            return nil
        }
    }

    package var streamKind: StreamKind? { .channel }

    /// Announces the receipts of big channels, batched, once a second.
    package var services: [any Service] {
        [CountAnnouncer(what: "chat receipt", flush: { [service] in try await service.flushReceipts() }, logger: logger),
         FileSweeper(files: files, logger: logger)]
    }

    /// Attachments' uploads.
    package var uploadHosts: [any UploadHost] { [files] }

    /// A channel's joined members read its stream.
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        _ = try await ChatService.channel(service.storage, ChannelId(id))
        _ = try await ChatService.requireJoined(service.storage, ChannelId(id), identity.userId)
    }
}
