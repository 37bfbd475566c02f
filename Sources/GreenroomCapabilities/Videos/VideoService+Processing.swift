import Foundation
import GreenroomCore
import GreenroomProtocol
import Logging
import ServiceLifecycle

/// Runs video processing jobs, at most `workers` at once, until graceful shutdown; at most
/// `capacity` wait their turn (a completed upload finds no room: `rateLimited`).
package final class VideoProcessor: Service, Sendable {
    private let jobs: AsyncStream<String>
    private let queue: AsyncStream<String>.Continuation
    private let handler = Locked<(@Sendable (String) async -> Void)?>(nil)
    /// Jobs queued or reserved and not yet taken by a worker.
    private let waiting = Locked(0)
    package let workers: Int
    package let capacity: Int

    package init(workers: Int, capacity: Int = 100) {
        self.workers = max(1, workers)
        self.capacity = max(1, capacity)
        (jobs, queue) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
    }

    /// Sets what a job does (the service that owns the videos).
    package func setHandler(_ handler: @escaping @Sendable (String) async -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Holds a place in the queue for a job about to be queued; `false` when it is full.
    /// Follow with ``enqueue(_:)`` or ``release()``.
    package func reserve() -> Bool {
        waiting.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    /// Gives back a place ``reserve()`` held.
    package func release() { waiting.withLock { $0 -= 1 } }

    /// Queues a video for processing, in the place ``reserve()`` held.
    package func enqueue(_ videoId: String) {
        queue.yield(videoId)
    }

    package func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        for await id in self.jobs {
                            self.release()
                            if let handler = self.handler.withLock({ $0 }) { await handler(id) }
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            self.queue.finish()
        }
    }
}

extension VideoService {
    /// Reads an uploaded file with ffprobe, makes its thumbnail and encodes its HLS
    /// renditions with ffmpeg; the video ends `ready` with its dimensions, length, codec and
    /// renditions, or `failed` with the reason.
    package func process(_ id: String, tools: MediaTools, logger: Logger) async {
        let outcome: Result<(media: Probed, renditions: [VideoRendition]), GreenroomError>
        do {
            let media = try await probeAndThumbnail(id, tools: tools)
            let renditions = try await encodeRenditions(id, ffmpeg: tools.ffmpeg ?? "", width: media.width, height: media.height, hasAudio: media.hasAudio)
            outcome = .success((media, renditions))
        } catch let error as GreenroomError {
            outcome = .failure(error)
        } catch {
            outcome = .failure(GreenroomError(.internalError, "processing failed: \(error)"))
        }
        do {
            try await change(id) { video in
                switch outcome {
                case .success(let (media, renditions)):
                    video.status = .ready
                    video.width = media.width
                    video.height = media.height
                    video.duration = media.duration
                    video.codec = media.codec
                    video.thumbnailURL = "/v1/videos/\(id)/thumbnail"
                    video.hlsURL = "/v1/videos/\(id)/index.m3u8"
                    video.renditions = renditions
                case .failure(let error):
                    video.status = .failed
                    video.failureReason = error.message
                }
            }
        } catch {
            logger.warning("video \(id) could not be updated after processing (deleted meanwhile?): \(error)")
        }
    }

    /// What ffprobe found in an upload.
    package struct Probed: Sendable {
        var width: Int
        var height: Int
        var duration: Double
        var codec: String
        var hasAudio: Bool
    }

    private func probeAndThumbnail(_ id: String, tools: MediaTools) async throws -> Probed {
        guard let ffprobe = tools.ffprobe, let ffmpeg = tools.ffmpeg else {
            throw GreenroomError(.unavailable, "processing is unavailable: ffprobe and ffmpeg are not installed on this server")
        }
        let file = original(id).path
        let probe = try await ChildProcess.run(ffprobe, ["-v", "error"] + MediaTools.uploadInput
                                             + ["-print_format", "json", "-show_format", "-show_streams", file], limit: processingLimit)
        guard probe.exit.succeeded, let info = try? RawJSON(json: probe.output) else {
            let reason = String(decoding: probe.errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "unreadable"
            throw GreenroomError(.invalidParameterValue, "the file is not a video (ffprobe: \(reason))")
        }
        guard let stream = info["streams"]?.arrayValue?.first(where: { $0["codec_type"]?.stringValue == "video" }),
              let width = stream["width"]?.numberValue.flatMap(Int.init(exactly:)),
              let height = stream["height"]?.numberValue.flatMap(Int.init(exactly:)) else {
            throw GreenroomError(.invalidParameterValue, "the file is not a video (no video stream)")
        }
        let hasAudio = info["streams"]?.arrayValue?.contains { $0["codec_type"]?.stringValue == "audio" } ?? false
        let duration = (info["format"]?["duration"]?.stringValue).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil } ?? 0
        let codec = stream["codec_name"]?.stringValue ?? "unknown"
        let at = String(format: "%.3f", min(1, duration / 2))
        let thumb = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y", "-ss", at] + MediaTools.uploadInput
                                             + ["-i", file, "-frames:v", "1", "-vf", "scale=320:-2", thumbnail(id).path], limit: processingLimit)
        guard thumb.exit.succeeded, FileManager.default.fileExists(atPath: thumbnail(id).path) else {
            throw GreenroomError(.invalidParameterValue, "no thumbnail could be made (ffmpeg: \(String(decoding: thumb.errors, as: UTF8.self).prefix(200)))")
        }
        return Probed(width: width, height: height, duration: duration, codec: codec, hasAudio: hasAudio)
    }
}
