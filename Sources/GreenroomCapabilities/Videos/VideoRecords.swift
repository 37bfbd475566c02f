import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A video as stored, sorted by creation, tagged with its status.
package struct VideoRecord: StoredRecord {
    package static let recordKind = "video"
    package var video: Video
    /// While it uploads, the most bytes its file may take (counted against its owner's
    /// quota until the file's size is known).
    package var allowance: Int64?

    package var recordId: String { video.id }
    package var recordSort: Int64 { Paging.millis(video.createdAt) }
    package var recordTag: String { video.status.rawValue }
}

/// Indexes an owner's videos.
package struct VideoOwnerRecord: StoredRecord {
    package static let recordKind = "video-owner"
    package var owner: String
    package var videoId: String

    package var recordScope: String { owner }
    package var recordId: String { videoId }
}

/// Indexes a tag's videos.
package struct VideoTagRecord: StoredRecord {
    package static let recordKind = "video-tag"
    package var tag: String
    package var videoId: String

    package var recordScope: String { tag }
    package var recordId: String { videoId }
}

/// An upload in progress.
package struct VideoUploadRecord: StoredRecord {
    package static let recordKind = "video-upload"
    package var uploadId: String
    package var videoId: String
    package var owner: String
    /// The most bytes the file may take: its declared size, or what its owner's quota
    /// leaves, at most the size limit.
    package var allowance: Int64?

    package var recordId: String { uploadId }
}
