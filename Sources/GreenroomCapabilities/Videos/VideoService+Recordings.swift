import Foundation
import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

/// Recordings of meetings and live events become videos of the feed: an MP4 that skips the
/// upload and is processed into renditions like any other.
extension VideoService: RecordingSink {
    /// How long a recording waits for a place in a full processing queue.
    static let recordingQueueWait: Duration = .seconds(600)

    package var recordingByteLimit: Int64 { maxBytes }

    /// Makes `file` a `processing` video owned by `owner` (within the owner's quota, with
    /// `video.created`) and queues it; answers its id.
    package func storeRecording(_ file: URL, owner: String, title: String, extraData: [String: RawJSON]) async throws -> String {
        let size = ResumableFiles.size(of: file)
        guard size <= maxBytes else { throw GreenroomError(.payloadTooLarge, "the recording is \(size) bytes; the largest video is \(maxBytes)") }
        // A place in the queue first: a video stored and then not queued would stay `processing`.
        let clock = ContinuousClock()
        let deadline = clock.now + Self.recordingQueueWait
        while !processor.reserve() {
            guard clock.now < deadline else {
                throw GreenroomError(.rateLimited, "\(processor.capacity) videos waited for processing for \(Self.recordingQueueWait.components.seconds) s")
            }
            try await Task.sleep(for: .seconds(5))
        }
        let now = Date.wireNow
        let id = "v" + RandomHex.string(bytes: 8)
        var video = Video(id: id, owner: owner, title: String(title.prefix(256)), tags: [], status: .processing, createdAt: now, updatedAt: now,
                          extraData: extraData)
        video.size = size
        video.playbackURL = "/v1/videos/\(id)/file"
        do {
            try FileManager.default.createDirectory(at: folder(id), withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: file, to: original(id))
            try await insert(video, size: size, uploadId: nil)
        } catch {
            processor.release()
            try? FileManager.default.removeItem(at: folder(id))
            throw error
        }
        processor.enqueue(id)
        return id
    }
}
