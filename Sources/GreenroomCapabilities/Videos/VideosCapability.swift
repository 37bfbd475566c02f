import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import ServiceLifecycle

/// The video feed (seed 004): resumable uploads, processing with ffmpeg, playback with
/// Range requests; the feed's stream (`videos`) is read with the `videos.read` scope.
package struct VideosCapability: Capability {
    package let service: VideoService
    package let processor: VideoProcessor

    package init(_ core: CapabilityContext) {
        let configuration = core.configuration
        let processor = VideoProcessor(workers: configuration.videoWorkers, capacity: configuration.videoQueueLimit)
        let tools = MediaTools.locate(ffprobe: configuration.ffprobePath, ffmpeg: configuration.ffmpegPath)
        let service = VideoService(
            storage: core.storage, events: core.events,
            directory: URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("videos", isDirectory: true),
            maxBytes: configuration.videoMaxBytes, processor: processor,
            processingLimit: .milliseconds(Int64(configuration.videoProcessingLimit * 1000)), maxPerUser: configuration.videoMaxPerUser,
            bytesPerUser: configuration.videoBytesPerUser)
        let logger = core.logger
        processor.setHandler { id in await service.process(id, tools: tools, logger: logger) }
        core.livestreams.recordingSink.withLock { $0 = service }
        self.service = service
        self.processor = processor
    }

    package var streamKind: StreamKind? { StreamKind(rawValue: VideoStream.name) }

    /// Following the feed needs the `videos.read` scope.
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        guard identity.grants.contains(VideoScope.read) else {
            throw GreenroomError(.permissionDenied, "following the video feed needs the videos.read scope")
        }
    }

    package var services: [any Service] { [processor] }
}

extension VideosCapability: UploadHosting {
    package var uploadHosts: [any UploadHost] { [service] }
}
