import Foundation
import GreenroomCore
import GreenroomProtocol

/// The resumable uploads' writing side, shared by the video feed and chat attachments: a
/// chunk is appended to the upload's file only at the offset the server holds, and only
/// by one request at a time per upload, so that two at once cannot both pass the offset
/// check and grow a file past its limit.
package final class ResumableFiles: Sendable {
    /// The uploads a request is appending to now.
    private let writing = Locked<Set<String>>([])

    package init() {}

    /// The bytes the server holds of the file at `url` (0 when there is none).
    package static func size(of url: URL) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber)?.int64Value ?? 0
    }

    /// Appends the chunk streamed from `body` to `file` after checking that the client's
    /// offset is the server's, refusing any byte past `limit`. - Returns: the new offset.
    /// - Throws: `alreadyExists` for another offset or another request on the same upload,
    ///   `payloadTooLarge` past the limit.
    package func append<Body: AsyncSequence>(_ uploadId: String, to file: URL, at clientOffset: Int64, limit: Int64,
                                             body: Body) async throws -> Int64 where Body.Element: Collection<UInt8> {
        guard writing.withLock({ $0.insert(uploadId).inserted }) else {
            throw GreenroomError(.alreadyExists, "another request is appending to this upload; ask for its offset when it is done")
        }
        defer { _ = writing.withLock { $0.remove(uploadId) } }
        var offset = Self.size(of: file)
        guard clientOffset == offset else {
            throw GreenroomError(.alreadyExists, "the server holds \(offset) bytes; send from there (Upload-Offset: \(offset))")
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        for try await chunk in body {
            offset += Int64(chunk.count)
            guard offset <= limit else {
                throw GreenroomError(.payloadTooLarge, "the upload is over its limit of \(limit) bytes (its declared size, the size limit or what its owner's quota leaves)")
            }
            try handle.write(contentsOf: Data(chunk))
        }
        return offset
    }
}

/// A capability whose uploads the resumable upload routes serve.
package protocol UploadHosting: Capability {
    /// Its kinds of upload.
    var uploadHosts: [any UploadHost] { get }
}

/// A kind of upload served by the resumable upload routes (`/v1/uploads/{id}`): the
/// video feed's and chat attachments', told apart by the upload id's first letter.
package protocol UploadHost: Sendable {
    /// The first letter of its upload ids.
    var uploadPrefix: Character { get }
    /// The bytes the server holds of the caller's upload. - Throws: `notFound`.
    func uploadOffset(_ uploadId: String, identity: Identity) async throws -> Int64
    /// Appends a chunk at `offset` (``ResumableFiles/append(_:to:at:limit:body:)``).
    func appendUpload<Body: AsyncSequence>(_ uploadId: String, at offset: Int64, body: Body, identity: Identity) async throws -> Int64
    where Body.Element: Collection<UInt8>
    /// Ends the upload; returns what it made (a video, an attachment).
    func completeUpload(_ uploadId: String, identity: Identity) async throws -> RawJSON
}
