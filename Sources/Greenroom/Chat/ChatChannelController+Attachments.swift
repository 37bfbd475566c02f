import Foundation
import GreenroomProtocol

extension ChatChannelController {
    // MARK: Attachments

    /// Uploads a file for this channel (its bytes through the resumable upload, in chunks
    /// of `chunkSize`, resumed by itself after a dropped connection) and returns it once the
    /// server has it: an image with its size and thumbnail, or a file. Send it with
    /// ``sendMessage(text:attachmentIds:extraData:mentionedUserIds:quotedMessageId:idempotencyKey:)``
    /// (or let ``sendFileMessage(fileURL:text:mimeType:name:progress:)`` do both). Only
    /// the channel's members read it once sent; until then only the uploader, for a day.
    ///
    /// - Parameters:
    ///   - fileURL: the file on the device.
    ///   - mimeType: its type; guessed from the file's extension when `nil`.
    ///   - name: its name; the file's own when `nil`.
    ///   - chunkSize: the bytes sent in one request.
    ///   - maxAttempts: tries in a row without progress before the upload gives up.
    ///   - progress: the fraction the server holds after each chunk (0…1).
    /// - Throws: `fileTypeNotAllowed` for a type the server does not take (or an "image"
    ///   that does not decode), `payloadTooLarge` past its size limit, `rateLimited` past
    ///   the user's quota.
    public func uploadAttachment(fileURL: URL, mimeType: String? = nil, name: String? = nil, chunkSize: Int = 1 << 20,
                                 maxAttempts: Int = 8, progress: (@Sendable (Double) -> Void)? = nil) async throws -> ChatAttachment {
        let size = ((try? FileManager.default.attributesOfItem(atPath: fileURL.path)[.size]) as? NSNumber)?.int64Value ?? 0
        let args = FileCreateArgs(channelId: channelId, name: name ?? fileURL.lastPathComponent,
                                  mimeType: mimeType ?? Self.mimeType(forExtension: fileURL.pathExtension), size: size)
        let ticket = try WireCoding.decode(FileUploadTicket.self, from: try await client.restRequest("POST", "/v1/files", body: try WireCoding.encode(args)).0)
        let answer = try await client.sendUpload(ticket.uploadId, fileURL: fileURL, size: size, from: ticket.offset,
                                                 chunkSize: chunkSize, maxAttempts: maxAttempts) { progress?($0) }
        progress?(1)
        return try WireCoding.decode(ChatAttachment.self, from: answer)
    }

    /// Sends a message carrying attachments uploaded with
    /// ``uploadAttachment(fileURL:mimeType:name:chunkSize:maxAttempts:progress:)`` (at most
    /// `Limits.maxAttachments`); its text may be empty then.
    @discardableResult
    public func sendMessage(text: String = "", attachmentIds: [String], extraData: [String: RawJSON] = [:], mentionedUserIds: [String] = [],
                            quotedMessageId: String? = nil, idempotencyKey: String = UUID().uuidString) async throws -> ChatMessage {
        var args = sendArgs(text: text, extraData: extraData, mentionedUserIds: mentionedUserIds, quotedMessageId: quotedMessageId,
                            idempotencyKey: idempotencyKey)
        args.attachmentIds = attachmentIds.isEmpty ? nil : attachmentIds
        return try await send(args)
    }

    /// Uploads a file and sends it in a message (Sendbird's `sendFileMessage`).
    @discardableResult
    public func sendFileMessage(fileURL: URL, text: String = "", mimeType: String? = nil, name: String? = nil,
                                progress: (@Sendable (Double) -> Void)? = nil) async throws -> ChatMessage {
        let file = try await uploadAttachment(fileURL: fileURL, mimeType: mimeType, name: name, progress: progress)
        return try await sendMessage(text: text, attachmentIds: [file.id])
    }

    /// The MIME type of a file extension, for the common ones; `application/octet-stream`
    /// otherwise.
    static func mimeType(forExtension pathExtension: String) -> String {
        let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
                     "heic": "image/heic", "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "pdf": "application/pdf",
                     "txt": "text/plain", "zip": "application/zip", "mp4": "video/mp4", "mov": "video/quicktime",
                     "m4a": "audio/mp4", "mp3": "audio/mpeg", "wav": "audio/wav"]
        return types[pathExtension.lowercased()] ?? "application/octet-stream"
    }
}

extension GreenroomClient {
    /// The URL of an attachment's bytes (or its thumbnail) with a token for that file alone
    /// in the query, for an image view or a download that cannot set headers. The token
    /// lives an hour (never past the session's); the server still checks that the user is
    /// a member of the channel. `nil` for a thumbnail an attachment does not have.
    public func attachmentURL(for attachment: ChatAttachment, thumbnail: Bool = false) async throws -> URL? {
        guard let path = thumbnail ? attachment.thumbnailURL : attachment.url else { return nil }
        return try await resourceURL(path: path, scope: ResourceTokenArgs.file(attachment.id))
    }

    /// Reads an attachment's bytes (or its thumbnail's) with the session's token.
    public func downloadAttachment(_ attachment: ChatAttachment, thumbnail: Bool = false) async throws -> Data {
        guard let path = thumbnail ? attachment.thumbnailURL : attachment.url else {
            throw GreenroomError(.notFound, "attachment \(attachment.id) has no thumbnail")
        }
        return try await restRequest("GET", path).0
    }
}
