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
    /// The headers of a chunk's `PATCH`.
    ///
    /// On Linux each chunk goes on a connection of its own: URLSession there (libcurl)
    /// silently resends a request whose reused connection died, but without its body, so
    /// after a cut the server waits for a body that never comes and the upload stalls until
    /// the request times out (60 s). On a fresh connection the cut is an error at once, and
    /// the upload resumes from the offset the server holds. (Apple's URLSession does not
    /// resend a `PATCH`, and manages the `Connection` header itself.)
    static func chunkHeaders(offset: Int64) -> [String: String] {
        var headers = ["Upload-Offset": String(offset), "Content-Type": "application/octet-stream"]
        #if canImport(FoundationNetworking)
        headers["Connection"] = "close"
        #endif
        return headers
    }

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
            let handle = try FileHandle(forReadingFrom: fileURL)
            defer { try? handle.close() }
            var offset = ticket.offset
            var failures = 0
            while offset < size {
                try Task.checkCancellation()
                do {
                    try handle.seek(toOffset: UInt64(offset))
                    let chunk = try handle.read(upToCount: chunkSize) ?? Data()
                    let (data, _) = try await self.request("PATCH", "/v1/uploads/\(ticket.uploadId)", body: chunk,
                                                           headers: Self.chunkHeaders(offset: offset))
                    offset = Int64(try RawJSON(json: data)["offset"]?.numberValue ?? Double(offset + Int64(chunk.count)))
                    failures = 0
                } catch let error as GreenroomError where error.is(.rateLimited) && error.retryAfterMs != nil
                    && self.client.configuration.retriesRateLimitedCommands {
                    // Over the user's upload budget: the same chunk again after the wait.
                    try await Task.sleep(for: .milliseconds(max(error.retryAfterMs ?? 1, 1)))
                } catch let error as GreenroomError where !error.isTransient && !error.is(.alreadyExists) {
                    throw error
                } catch {
                    failures += 1
                    guard failures < maxAttempts else { throw error }
                    try await Task.sleep(for: .milliseconds(100 * failures))
                    // Ask where the server is, and go on from there.
                    if let (data, _) = try? await self.request("GET", "/v1/uploads/\(ticket.uploadId)"),
                       let held = try? RawJSON(json: data)["offset"]?.numberValue {
                        offset = Int64(held)
                    }
                }
                let fraction = size > 0 ? Double(offset) / Double(size) : 1
                upload.report(fraction)
                let id = ticket.video.id
                self.post(.GRVideoUploadProgress) { ["videoID": id, "progress": fraction] }
            }
            let video = try self.decode(Video.self, try await self.request("POST", "/v1/uploads/\(ticket.uploadId)/complete").0)
            upload.report(1)
            self.post(.GRVideoUploadCompleted) { ["video": video] }
            return video
        }
        return upload
    }
}
