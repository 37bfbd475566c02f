import Foundation

extension Limits {
    /// The most attachments one message may carry.
    public static let maxAttachments = 10
    /// The longest attachment file name, in characters.
    public static let maxFileNameLength = 255
}

/// What an attachment holds: an image the server read (with its size and a thumbnail), or
/// any other file.
public enum ChatAttachmentType: String, Codable, Sendable, Hashable, CaseIterable {
    /// A picture: PNG, JPEG, WebP, GIF, BMP or TIFF that ffmpeg decoded.
    case image
    /// Any other file of an allowed type.
    case file
}

/// A file uploaded for a channel (Sendbird's `FileMessage` file, Stream's attachment).
///
/// Its `url` and `thumbnailURL` are the server's paths; only members of the channel read
/// them (before it is sent, only its uploader), with `Authorization: Bearer` or a
/// resource token for `/v1/files/ID/` in `?token=`. A deleted message's files are gone.
public struct ChatAttachment: Codable, Sendable, Hashable, Identifiable {
    /// The file's id (`f…`), which a message's `attachmentIds` names.
    public var id: String
    /// An image, once the server read it as one, or a file.
    public var type: ChatAttachmentType
    /// The file's name, as the uploader gave it.
    public var name: String
    /// The MIME type: the uploader's for a file, the decoded format's for an image.
    public var mimeType: String
    /// The declared size while it uploads, then the bytes the server holds.
    public var size: Int64
    /// Where its bytes are read: `/v1/files/ID/file` (with `Range` requests).
    public var url: String
    /// An image's JPEG thumbnail (at most 320 pixels wide): `/v1/files/ID/thumbnail`.
    public var thumbnailURL: String?
    /// An image's width in pixels.
    public var width: Int?
    /// An image's height in pixels.
    public var height: Int?
    /// The channel it was uploaded for.
    public var channelId: ChannelId
    /// Who uploaded it.
    public var uploadedBy: String
    /// Whether its upload is complete (a message may carry it only then).
    public var isUploaded: Bool

    /// Makes an attachment.
    public init(id: String, type: ChatAttachmentType, name: String, mimeType: String, size: Int64, url: String,
                thumbnailURL: String? = nil, width: Int? = nil, height: Int? = nil, channelId: ChannelId, uploadedBy: String,
                isUploaded: Bool) {
        self.id = id
        self.type = type
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.url = url
        self.thumbnailURL = thumbnailURL
        self.width = width
        self.height = height
        self.channelId = channelId
        self.uploadedBy = uploadedBy
        self.isUploaded = isUploaded
    }
}

/// The body of `POST /v1/files`: a file to upload for a channel the caller has joined.
public struct FileCreateArgs: Codable, Sendable, Hashable {
    /// The channel whose members will read it.
    public var channelId: ChannelId
    /// The file's name (1–``Limits/maxFileNameLength`` characters, no `/`).
    public var name: String
    /// Its MIME type (`image/png`, `application/pdf`, …): one the server allows.
    public var mimeType: String
    /// Its size in bytes: at most the server's limit; the upload may not pass it.
    public var size: Int64

    /// Makes the arguments.
    public init(channelId: ChannelId, name: String, mimeType: String, size: Int64) {
        self.channelId = channelId
        self.name = name
        self.mimeType = mimeType
        self.size = size
    }
}

/// What `POST /v1/files` answers: the attachment (not uploaded yet) and where its bytes go
/// (`PATCH /v1/uploads/{uploadId}` from `offset`, then `POST /v1/uploads/{uploadId}/complete`).
public struct FileUploadTicket: Codable, Sendable, Hashable {
    /// The attachment being uploaded.
    public var file: ChatAttachment
    /// The upload's id, for the resumable upload's routes.
    public var uploadId: String
    /// The bytes the server holds.
    public var offset: Int64

    /// Makes the ticket.
    public init(file: ChatAttachment, uploadId: String, offset: Int64) {
        self.file = file
        self.uploadId = uploadId
        self.offset = offset
    }
}

extension ResourceTokenArgs {
    /// The scope of an attachment's file and thumbnail.
    public static func file(_ id: String) -> String { "/v1/files/\(id)/" }
}
