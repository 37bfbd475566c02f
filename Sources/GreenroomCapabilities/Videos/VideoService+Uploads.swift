import Foundation
import GreenroomCore
import GreenroomProtocol

/// The video feed's uploads on the resumable upload routes: ids `u…`.
extension VideoService: UploadHost {
    package var uploadPrefix: Character { "u" }

    package func uploadOffset(_ uploadId: String, identity: Identity) async throws -> Int64 {
        offset(try await upload(uploadId, identity: identity))
    }

    package func appendUpload<Body: AsyncSequence>(_ uploadId: String, at offset: Int64, body: Body, identity: Identity) async throws -> Int64
    where Body.Element: Collection<UInt8> {
        try await append(uploadId, at: offset, body: body, identity: identity)
    }

    package func completeUpload(_ uploadId: String, identity: Identity) async throws -> RawJSON {
        try RawJSON(encoding: try await complete(uploadId, identity: identity))
    }
}
