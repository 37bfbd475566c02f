import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A chat attachment as stored: uploading, uploaded and waiting to be sent, or sent with a
/// message. Sorted by creation and tagged with its state, so that the sweeper finds the
/// stale unsent ones. Removed with its message, its channel, or a day after its upload
/// when never sent.
package struct FileRecord: StoredRecord {
    package static let recordKind = "chat-file"
    /// A file's state, its record's tag.
    package enum State: String, Codable, Sendable {
        case uploading, uploaded, sent
    }

    package var file: ChatAttachment
    package var state: State
    /// The message that carries it, once sent.
    package var messageId: String?
    /// The most bytes the upload may take (its declared size, at most the limit).
    package var allowance: Int64
    package var createdAt: Date

    package var recordId: String { file.id }
    package var recordSort: Int64 { Paging.millis(createdAt) }
    package var recordTag: String { state.rawValue }

    /// The bytes it counts against its uploader's quota: its declared size until uploaded.
    package var counted: Int64 { state == .uploading ? allowance : file.size }
}

/// Indexes a channel's files, so that deleting the channel finds them.
package struct ChannelFileRecord: StoredRecord {
    package static let recordKind = "chat-file-channel"
    package var channelId: ChannelId
    package var fileId: String

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { fileId }
}

/// What one user's attachments take: bytes (each at its declared size until uploaded)
/// and how many are not sent yet. Kept in the transactions that add and remove files.
package struct FileUsageRecord: StoredRecord {
    package static let recordKind = "chat-file-usage"
    package var userId: String
    package var bytes: Int64
    package var unsent: Int

    package var recordId: String { userId }
}
