import Foundation
import GreenroomProtocol

/// A video as stored, sorted by creation, tagged with its status.
struct VideoRecord: StoredRecord {
    static let recordKind = "video"
    var video: Video
    /// While it uploads, the most bytes its file may take (counted against its owner's
    /// quota until the file's size is known).
    var allowance: Int64?

    var recordId: String { video.id }
    var recordSort: Int64 { Paging.millis(video.createdAt) }
    var recordTag: String { video.status.rawValue }
}

/// Indexes an owner's videos.
struct VideoOwnerRecord: StoredRecord {
    static let recordKind = "video-owner"
    var owner: String
    var videoId: String

    var recordScope: String { owner }
    var recordId: String { videoId }
}

/// Indexes a tag's videos.
struct VideoTagRecord: StoredRecord {
    static let recordKind = "video-tag"
    var tag: String
    var videoId: String

    var recordScope: String { tag }
    var recordId: String { videoId }
}

/// An upload in progress.
struct VideoUploadRecord: StoredRecord {
    static let recordKind = "video-upload"
    var uploadId: String
    var videoId: String
    var owner: String
    /// The most bytes the file may take: its declared size, or what its owner's quota
    /// leaves, at most the size limit.
    var allowance: Int64?

    var recordId: String { uploadId }
}
