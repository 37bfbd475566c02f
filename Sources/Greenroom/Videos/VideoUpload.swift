import Foundation
import GreenroomProtocol

/// An upload in progress: its progress as an `AsyncStream` (and as
/// `GRVideoUploadProgress`), and its result.
///
/// The file is sent in chunks from the offset the server holds; when the connection drops,
/// the upload asks the server for that offset and sends the rest by itself.
public final class VideoUpload: Sendable {
    /// Fractions of the file the server holds (0…1), ending with 1.
    public let progress: AsyncStream<Double>
    private let continuation: AsyncStream<Double>.Continuation
    private let task = Locked<Task<Video, any Error>?>(nil)
    private let ticket = Locked<VideoUploadTicket?>(nil)

    init() {
        (progress, continuation) = AsyncStream.makeStream(of: Double.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// The video being uploaded, once the server created it.
    public var video: Video? { ticket.withLock { $0?.video } }

    /// Waits for the upload to finish; returns the video (status `processing`).
    public func result() async throws -> Video {
        guard let task = task.withLock({ $0 }) else { throw GreenroomError(.internalError, "the upload did not start") }
        return try await task.value
    }

    /// Stops the upload.
    public func cancel() {
        task.withLock { $0 }?.cancel()
    }

    func start(_ body: @escaping @Sendable (VideoUpload) async throws -> Video) {
        task.withLock { $0 = Task { try await body(self) } }
    }

    func setTicket(_ value: VideoUploadTicket) { ticket.withLock { $0 = value } }
    func report(_ fraction: Double) { continuation.yield(fraction) }
    func finish() { continuation.finish() }
}

extension VideoSession {
    /// Uploads a file (`videos.create`) in chunks of `chunkSize` bytes; resumes by itself
    /// after a dropped connection (up to `maxAttempts` tries in a row without progress).
    public func upload(fileURL: URL, title: String? = nil, tags: [String] = [], extraData: [String: RawJSON] = [:],
                       chunkSize: Int = 1 << 20, maxAttempts: Int = 8) -> VideoUpload {
        let upload = VideoUpload()
        upload.start { upload in
            defer { upload.finish() }
            let size = ((try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.size]) as? NSNumber)?.int64Value ?? 0
            let body = try WireCoding.encode(VideoCreateArgs(title: title, tags: tags, extraData: extraData, size: size))
            let ticket = try self.decode(VideoUploadTicket.self, try await self.request("POST", "/v1/videos", body: body).0)
            upload.setTicket(ticket)
            let id = ticket.video.id
            let answer = try await self.client.sendUpload(ticket.uploadId, fileURL: fileURL, size: size, from: ticket.offset,
                                                          chunkSize: chunkSize, maxAttempts: maxAttempts) { fraction in
                upload.report(fraction)
                self.post(.GRVideoUploadProgress) { ["videoID": id, "progress": fraction] }
            }
            let video = try self.decode(Video.self, answer)
            upload.report(1)
            self.post(.GRVideoUploadCompleted) { ["video": video] }
            return video
        }
        return upload
    }
}
