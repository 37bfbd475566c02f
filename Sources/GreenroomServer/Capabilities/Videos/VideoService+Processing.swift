import Foundation
import GreenroomProtocol
import Logging
import ServiceLifecycle

/// Runs video processing jobs, at most `workers` at once, until graceful shutdown.
final class VideoProcessor: Service, Sendable {
    private let jobs: AsyncStream<String>
    private let queue: AsyncStream<String>.Continuation
    private let handler = Locked<(@Sendable (String) async -> Void)?>(nil)
    let workers: Int

    init(workers: Int) {
        self.workers = max(1, workers)
        (jobs, queue) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .unbounded)
    }

    /// Sets what a job does (the service that owns the videos).
    func setHandler(_ handler: @escaping @Sendable (String) async -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Queues a video for processing.
    func enqueue(_ videoId: String) {
        queue.yield(videoId)
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask {
                        for await id in self.jobs {
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

/// The media tools found on this machine.
struct MediaTools: Sendable {
    var ffprobe: String?
    var ffmpeg: String?

    /// The tools named by the configuration, or found on `PATH`.
    static func locate(ffprobe: String?, ffmpeg: String?) -> MediaTools {
        func find(_ name: String, _ configured: String?) -> String? {
            if let configured { return FileManager.default.isExecutableFile(atPath: configured) ? configured : nil }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        return MediaTools(ffprobe: find("ffprobe", ffprobe), ffmpeg: find("ffmpeg", ffmpeg))
    }

    /// Runs a tool; returns its exit status, standard output and standard error.
    static func run(_ tool: String, _ arguments: [String]) async throws -> (status: Int32, output: Data, errors: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = ChildProcesses.pipe(), errors = ChildProcesses.pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            // Both pipes are drained while the tool runs, so a chatty tool never blocks on a full pipe.
            let collected = Locked((Data(), Data()))
            let group = DispatchGroup()
            for (index, pipe) in [output, errors].enumerated() {
                group.enter()
                DispatchQueue.global().async {
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    collected.withLock { if index == 0 { $0.0 = data } else { $0.1 = data } }
                    group.leave()
                }
            }
            process.terminationHandler = { process in
                group.notify(queue: .global()) {
                    let (out, err) = collected.withLock { $0 }
                    continuation.resume(returning: (process.terminationStatus, out, err))
                }
            }
            do {
                try ChildProcesses.run(process)
            } catch {
                process.terminationHandler = nil
                try? output.fileHandleForWriting.close()
                try? errors.fileHandleForWriting.close()
                continuation.resume(throwing: error)
            }
        }
    }
}

extension VideoService {
    /// Reads an uploaded file with ffprobe, makes its thumbnail and encodes its HLS
    /// renditions with ffmpeg; the video ends `ready` with its dimensions, length, codec and
    /// renditions, or `failed` with the reason.
    func process(_ id: String, tools: MediaTools, logger: Logger) async {
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
    struct Probed: Sendable {
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
        let probe = try await MediaTools.run(ffprobe, ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file])
        guard probe.status == 0, let info = try? RawJSON(json: probe.output) else {
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
        let thumb = try await MediaTools.run(ffmpeg, ["-v", "error", "-y", "-ss", at, "-i", file, "-frames:v", "1", "-vf", "scale=320:-2", thumbnail(id).path])
        guard thumb.status == 0, FileManager.default.fileExists(atPath: thumbnail(id).path) else {
            throw GreenroomError(.invalidParameterValue, "no thumbnail could be made (ffmpeg: \(String(decoding: thumb.errors, as: UTF8.self).prefix(200)))")
        }
        return Probed(width: width, height: height, duration: duration, codec: codec, hasAudio: hasAudio)
    }
}
