import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Chat attachments: files uploaded for a channel through the resumable upload routes
/// (upload ids `f…`, the file's own id), kept on this node's disk under
/// `<data-dir>/files/<id>/`, read by the channel's joined members only. An image is
/// decoded by ffprobe and gets a JPEG thumbnail from ffmpeg; its size and type are the
/// decoded ones, never the uploader's word.
package struct ChatFiles: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let directory: URL
    /// The largest file.
    package let maxBytes: Int64
    /// The MIME types allowed, each exact or `type/*`.
    package let types: [String]
    /// The most bytes one user's files may take.
    package let bytesPerUser: Int64
    /// The most files one user may have that no message carries yet.
    package let unsentPerUser: Int
    package let tools: MediaTools
    /// The longest one ffprobe or ffmpeg run on an image may take.
    package var processingLimit: Duration = .seconds(60)
    /// How many images are read at once on this node; one more is refused with
    /// `rateLimited` (complete it again in a moment).
    package var processingSlots = 4
    package let uploads = ResumableFiles()
    private let processing = Locked(0)
    /// How long an uploaded file waits to be sent before the sweeper removes it.
    package static let unsentLifetime: TimeInterval = 86_400

    package init(storage: any GreenroomStorage, events: EventLog, directory: URL, maxBytes: Int64, types: [String],
                 bytesPerUser: Int64, unsentPerUser: Int, tools: MediaTools) {
        self.storage = storage
        self.events = events
        self.directory = directory
        self.maxBytes = maxBytes
        self.types = types.map { $0.lowercased() }
        self.bytesPerUser = bytesPerUser
        self.unsentPerUser = unsentPerUser
        self.tools = tools
    }

    package func folder(_ id: String) -> URL { directory.appendingPathComponent(id, isDirectory: true) }
    package func original(_ id: String) -> URL { folder(id).appendingPathComponent("original") }
    package func thumbnail(_ id: String) -> URL { folder(id).appendingPathComponent("thumbnail.jpg") }

    /// Whether the server takes files of `mimeType`.
    package func allows(_ mimeType: String) -> Bool {
        let type = mimeType.lowercased()
        return types.contains { pattern in
            pattern.hasSuffix("/*") ? type.hasPrefix(pattern.dropLast()) : type == pattern
        }
    }

    static func checkName(_ name: String) throws {
        guard (1...Limits.maxFileNameLength).contains(name.count), !name.contains("/"),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw GreenroomError(.invalidParameterValue, "name must be 1–\(Limits.maxFileNameLength) characters without / or control characters")
        }
    }

    static func checkMimeType(_ type: String) throws {
        let token = "[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,62}"
        guard type.wholeMatch(of: try Regex("\(token)/\(token)")) != nil else {
            throw GreenroomError(.invalidParameterValue, "mimeType must be a MIME type such as image/png")
        }
    }

    // MARK: Uploading

    /// Creates an attachment for a channel the caller has joined and its upload.
    package func create(_ args: FileCreateArgs, identity: Identity) async throws -> FileUploadTicket {
        try Self.checkName(args.name)
        try Self.checkMimeType(args.mimeType)
        guard allows(args.mimeType) else {
            throw GreenroomError(.fileTypeNotAllowed, "this server takes no files of type \(args.mimeType) (it takes \(types.joined(separator: ", ")))")
        }
        guard args.size >= 0 else { throw GreenroomError(.invalidParameterValue, "size must not be negative") }
        guard args.size <= maxBytes else {
            throw GreenroomError(.payloadTooLarge, "the file is \(args.size) bytes; the limit is \(maxBytes)")
        }
        let owner = identity.userId
        let now = Date.wireNow
        let id = "f" + RandomHex.string(bytes: 10)
        let file = ChatAttachment(id: id, type: .file, name: args.name, mimeType: args.mimeType.lowercased(), size: args.size,
                                  url: "/v1/files/\(id)/file", channelId: args.channelId, uploadedBy: owner, isUploaded: false)
        try FileManager.default.createDirectory(at: folder(id), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: original(id).path, contents: nil) else {
            throw GreenroomError(.internalError, "the upload file could not be created")
        }
        let (bytesPerUser, unsentPerUser) = (bytesPerUser, unsentPerUser)
        do {
            try await events.transact { transaction in
                _ = try await ChatService.channel(transaction, args.channelId)
                _ = try await ChatService.requireJoined(transaction, args.channelId, owner)
                // One upload per owner at a time, on every node: the quota holds until commit.
                try await transaction.lock(stream: StreamName.user(owner))
                var usage = try await transaction.load(FileUsageRecord.self, id: owner) ?? FileUsageRecord(userId: owner, bytes: 0, unsent: 0)
                guard usage.unsent < unsentPerUser else {
                    throw GreenroomError(.rateLimited, "a user may have at most \(unsentPerUser) files uploaded and not sent; send or wait for them first")
                }
                guard usage.bytes + args.size <= bytesPerUser else {
                    throw GreenroomError(.rateLimited, "this user's files take \(usage.bytes) of the \(bytesPerUser) bytes one user may have; delete some first")
                }
                usage.bytes += args.size
                usage.unsent += 1
                try await transaction.save(usage)
                try await transaction.save(FileRecord(file: file, state: .uploading, allowance: args.size, createdAt: now))
                try await transaction.save(ChannelFileRecord(channelId: args.channelId, fileId: id))
            }
        } catch {
            try? FileManager.default.removeItem(at: folder(id))
            throw error
        }
        return FileUploadTicket(file: file, uploadId: id, offset: 0)
    }

    /// The caller's file still uploading with this id. - Throws: `notFound` (also for
    /// someone else's, and once complete).
    package func upload(_ uploadId: String, identity: Identity) async throws -> FileRecord {
        guard let record = try await storage.load(FileRecord.self, id: uploadId), record.file.uploadedBy == identity.userId,
              record.state == .uploading else {
            throw GreenroomError(.notFound, "no upload with id \(uploadId)")
        }
        return record
    }

    /// Ends an upload: an image is decoded (its size, its type, a thumbnail), then the file
    /// may be sent. A file declared an image that does not decode as one is refused with
    /// `fileTypeNotAllowed` and removed.
    package func complete(_ uploadId: String, identity: Identity) async throws -> ChatAttachment {
        let record = try await upload(uploadId, identity: identity)
        let id = record.file.id
        var file = record.file
        file.size = ResumableFiles.size(of: original(id))
        guard file.size == record.allowance else {
            throw GreenroomError(.invalidParameterValue, "the server holds \(file.size) of the \(record.allowance) bytes declared; send the rest first")
        }
        if file.mimeType.hasPrefix("image/"), let ffprobe = tools.ffprobe, let ffmpeg = tools.ffmpeg {
            guard processing.withLock({ count in
                guard count < processingSlots else { return false }
                count += 1
                return true
            }) else {
                throw GreenroomError(rateLimited: "\(processingSlots) images are being read on this node; complete the upload again in a moment", retryAfterMs: 1_000)
            }
            defer { processing.withLock { $0 -= 1 } }
            do {
                let image = try await readImage(id, ffprobe: ffprobe, ffmpeg: ffmpeg)
                file.type = .image
                file.mimeType = image.mimeType
                file.width = image.width
                file.height = image.height
                file.thumbnailURL = "/v1/files/\(id)/thumbnail"
            } catch let error as GreenroomError where error.is(.fileTypeNotAllowed) {
                try await events.transact { transaction in
                    guard let current = try await transaction.load(FileRecord.self, id: id) else { return }
                    try await Self.drop([current], in: transaction)
                }
                try? FileManager.default.removeItem(at: folder(id))
                throw error
            }
        }
        file.isUploaded = true
        let done = file
        return try await events.transact { transaction in
            guard var current = try await transaction.load(FileRecord.self, id: id), current.state == .uploading else {
                throw GreenroomError(.notFound, "no upload with id \(uploadId)")
            }
            current.file = done
            current.state = .uploaded
            try await transaction.save(current)
            return done
        }
    }

    /// What ffprobe decoded of an image.
    struct DecodedImage {
        var width: Int
        var height: Int
        var mimeType: String
    }

    /// The input options of every ffprobe and ffmpeg run on an uploaded image: a local file
    /// only, read by the single-image demuxers (not `image2`, which reads sequences of
    /// files named by a pattern).
    static let imageInput = ["-protocol_whitelist", "file", "-format_whitelist", "png_pipe,jpeg_pipe,webp_pipe,gif,bmp_pipe,tiff_pipe"]
    /// The image codecs taken, and the MIME type each is served as.
    static let imageTypes = ["png": "image/png", "mjpeg": "image/jpeg", "webp": "image/webp", "gif": "image/gif", "bmp": "image/bmp", "tiff": "image/tiff"]
    /// The largest image decoded, in pixels (a small file may declare a huge picture).
    static let maxPixels = 100_000_000

    /// Decodes an upload with ffprobe and makes its thumbnail (at most 320 pixels wide).
    private func readImage(_ id: String, ffprobe: String, ffmpeg: String) async throws -> DecodedImage {
        let path = original(id).path
        let probe = try await ChildProcess.run(ffprobe, ["-v", "error"] + Self.imageInput
                                             + ["-print_format", "json", "-show_streams", path], limit: processingLimit)
        guard probe.exit.succeeded, let info = try? RawJSON(json: probe.output),
              let stream = info["streams"]?.arrayValue?.first(where: { $0["codec_type"]?.stringValue == "video" }),
              let mimeType = stream["codec_name"]?.stringValue.flatMap({ Self.imageTypes[$0] }),
              let width = stream["width"]?.numberValue.flatMap(Int.init(exactly:)),
              let height = stream["height"]?.numberValue.flatMap(Int.init(exactly:)),
              width > 0, height > 0, width <= 65_536, height <= 65_536, width * height <= Self.maxPixels else {
            throw GreenroomError(.fileTypeNotAllowed, "the file is not an image this server reads (PNG, JPEG, WebP, GIF, BMP or TIFF, at most \(Self.maxPixels) pixels)")
        }
        let made = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y"] + Self.imageInput
                                            + ["-i", path, "-frames:v", "1", "-vf", "scale='min(320,iw)':-2", "-update", "1", thumbnail(id).path],
                                            limit: processingLimit)
        guard made.exit.succeeded, FileManager.default.fileExists(atPath: thumbnail(id).path) else {
            throw GreenroomError(.fileTypeNotAllowed, "no thumbnail could be made of the image (ffmpeg: \(String(decoding: made.errors, as: UTF8.self).prefix(200)))")
        }
        return DecodedImage(width: width, height: height, mimeType: mimeType)
    }
}

/// Chat attachments' uploads on the resumable upload routes: ids `f…`.
extension ChatFiles: UploadHost {
    package var uploadPrefix: Character { "f" }

    package func uploadOffset(_ uploadId: String, identity: Identity) async throws -> Int64 {
        ResumableFiles.size(of: original(try await upload(uploadId, identity: identity).file.id))
    }

    package func appendUpload<Body: AsyncSequence>(_ uploadId: String, at offset: Int64, body: Body, identity: Identity) async throws -> Int64
    where Body.Element: Collection<UInt8> {
        let record = try await upload(uploadId, identity: identity)
        return try await uploads.append(uploadId, to: original(record.file.id), at: offset, limit: min(record.allowance, maxBytes), body: body)
    }

    package func completeUpload(_ uploadId: String, identity: Identity) async throws -> RawJSON {
        try RawJSON(encoding: try await complete(uploadId, identity: identity))
    }
}
