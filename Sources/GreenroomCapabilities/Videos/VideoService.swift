import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The rules of the video feed: scopes, ownership, uploads into files on this node's disk,
/// processing by a bounded pool, and the `videos` stream's created / updated / deleted events.
package struct VideoService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    /// Where files live: `<data-dir>/videos/<id>/`.
    package let directory: URL
    /// The largest upload.
    package let maxBytes: Int64
    package let processor: VideoProcessor
    /// The longest one ffprobe or ffmpeg run on an upload may take.
    package var processingLimit: Duration = .seconds(600)
    /// The most videos one user may have.
    package var maxPerUser = 1_000
    /// The most bytes one user's videos may take together.
    package var bytesPerUser: Int64 = 10 << 30
    /// Appends the uploads' chunks, one request at a time per upload.
    package var files = ResumableFiles()

    package func folder(_ id: String) -> URL { directory.appendingPathComponent(id, isDirectory: true) }
    package func original(_ id: String) -> URL { folder(id).appendingPathComponent("original") }
    package func thumbnail(_ id: String) -> URL { folder(id).appendingPathComponent("thumbnail.jpg") }

    package static func require(_ identity: Identity, _ scope: String) throws {
        guard identity.grants.contains(scope) else {
            throw GreenroomError(.permissionDenied, "the session lacks the \(scope) scope")
        }
    }

    package static func load(_ reader: any RecordReading, _ id: String) async throws -> VideoRecord {
        guard let record = try await reader.load(VideoRecord.self, id: id) else {
            throw GreenroomError(.notFound, "no video with id \(id)")
        }
        return record
    }

    package static func event(_ type: String, _ data: RawJSON) -> EventAppend {
        EventAppend(stream: VideoStream.name, type: type, data: data)
    }

    package static func validate(title: String?, tags: [String]?, extraData: [String: RawJSON]?) throws {
        if let title, title.count > 256 { throw GreenroomError(.invalidParameterValue, "title must be at most 256 characters") }
        if let tags {
            guard tags.count <= 20, tags.allSatisfy({ (1...64).contains($0.count) }) else {
                throw GreenroomError(.invalidParameterValue, "at most 20 tags of 1–64 characters")
            }
        }
        if let extraData, let error = Limits.checkExtraData(extraData) { throw error }
    }

    // MARK: Creating and uploading

    /// Creates a video (status `uploading`) and its upload.
    package func create(_ args: VideoCreateArgs, identity: Identity) async throws -> VideoUploadTicket {
        try Self.require(identity, VideoScope.create)
        try Self.validate(title: args.title, tags: args.tags, extraData: args.extraData)
        if let size = args.size, size > maxBytes {
            throw GreenroomError(.payloadTooLarge, "the file is \(size) bytes; the limit is \(maxBytes)")
        }
        let now = Date.wireNow
        let id = "v" + RandomHex.string(bytes: 8)
        let video = Video(id: id, owner: identity.userId, title: args.title ?? "", tags: Array(Set(args.tags ?? [])).sorted(),
                          status: .uploading, createdAt: now, updatedAt: now, extraData: args.extraData ?? [:])
        try FileManager.default.createDirectory(at: folder(id), withIntermediateDirectories: true)
        guard FileManager.default.createFile(atPath: original(id).path, contents: nil) else {
            throw GreenroomError(.internalError, "the upload file could not be created")
        }
        let uploadId = "u" + RandomHex.string(bytes: 10)
        do {
            try await insert(video, size: args.size, uploadId: uploadId)
        } catch {
            try? FileManager.default.removeItem(at: folder(id))
            throw error
        }
        return VideoUploadTicket(video: video, uploadId: uploadId, offset: 0)
    }

    /// Stores a new video, within its owner's quota, with `video.created`: its upload
    /// (`uploadId`) waits for bytes up to `size` (or what the quota leaves), or, without one,
    /// its file of `size` bytes is already in place.
    package func insert(_ video: Video, size: Int64?, uploadId: String?) async throws {
        let (maxPerUser, maxBytes, bytesPerUser) = (maxPerUser, maxBytes, bytesPerUser)
        try await events.transact { transaction in
            // One creation per owner at a time, on every node: the checks hold until commit.
            try await transaction.lock(stream: StreamName.user(video.owner))
            var query = RecordQuery(kind: VideoRecord.recordKind, limit: maxPerUser)
            query.via = (VideoOwnerRecord.recordKind, video.owner, nil)
            let owned = try await transaction.list(VideoRecord.self, query)
            guard owned.count < maxPerUser else {
                throw GreenroomError(.rateLimited, "a user may have at most \(maxPerUser) videos; delete some first")
            }
            let used = owned.reduce(Int64(0)) { $0 + ($1.video.size ?? $1.allowance ?? maxBytes) }
            let left = bytesPerUser - used
            let allowance = min(size ?? maxBytes, maxBytes, left)
            guard left > 0, size.map({ $0 <= left }) ?? true else {
                throw GreenroomError(.rateLimited, "this user's videos take \(used) of the \(bytesPerUser) bytes one user may have; delete some first")
            }
            try await transaction.save(VideoRecord(video: video, allowance: uploadId == nil ? nil : allowance))
            try await transaction.save(VideoOwnerRecord(owner: video.owner, videoId: video.id))
            for tag in video.tags { try await transaction.save(VideoTagRecord(tag: tag, videoId: video.id)) }
            if let uploadId {
                try await transaction.save(VideoUploadRecord(uploadId: uploadId, videoId: video.id, owner: video.owner, allowance: allowance))
            }
            _ = try await transaction.append([Self.event(VideoStream.created, ["video": try RawJSON(encoding: video)])])
        }
    }

    /// The upload of `identity` with this id. - Throws: `notFound` (also for someone else's).
    package func upload(_ uploadId: String, identity: Identity) async throws -> VideoUploadRecord {
        guard let upload = try await storage.load(VideoUploadRecord.self, id: uploadId), upload.owner == identity.userId else {
            throw GreenroomError(.notFound, "no upload with id \(uploadId)")
        }
        return upload
    }

    /// How many bytes the server holds of an upload.
    package func offset(_ upload: VideoUploadRecord) -> Int64 {
        ResumableFiles.size(of: original(upload.videoId))
    }

    /// Appends a chunk streamed from the request to the file, after checking that the
    /// client's offset is the server's. - Returns: the new offset.
    package func append<Body: AsyncSequence>(_ uploadId: String, at clientOffset: Int64, body: Body, identity: Identity) async throws -> Int64
    where Body.Element: Collection<UInt8> {
        let upload = try await upload(uploadId, identity: identity)
        return try await files.append(uploadId, to: original(upload.videoId), at: clientOffset,
                                      limit: min(maxBytes, upload.allowance ?? maxBytes), body: body)
    }

    /// Ends an upload: the video is `processing` and queued; `rateLimited` (the upload
    /// kept, to complete again later) when the processing queue is full.
    package func complete(_ uploadId: String, identity: Identity) async throws -> Video {
        let upload = try await upload(uploadId, identity: identity)
        let size = offset(upload)
        guard processor.reserve() else {
            throw GreenroomError(.rateLimited, "\(processor.capacity) videos wait for processing already; complete the upload again in a minute")
        }
        let video: Video
        do {
            video = try await change(upload.videoId) { video in
                video.status = .processing
                video.size = size
                video.playbackURL = "/v1/videos/\(video.id)/file"
            } extra: { transaction in
                try await transaction.remove(VideoUploadRecord.self, id: uploadId)
            }
        } catch {
            processor.release()
            throw error
        }
        processor.enqueue(upload.videoId)
        return video
    }

    /// Changes a video in a transaction and announces only the fields that changed.
    @discardableResult
    package func change(_ id: String, _ body: @escaping @Sendable (inout Video) throws -> Void,
                extra: @escaping @Sendable (any StorageTransaction) async throws -> Void = { _ in }) async throws -> Video {
        try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            let before = record.video
            try body(&record.video)
            record.video.updatedAt = Date.wireNow
            for tag in Set(before.tags).subtracting(record.video.tags) { try await transaction.remove(VideoTagRecord.self, scope: tag, id: id) }
            for tag in Set(record.video.tags).subtracting(before.tags) { try await transaction.save(VideoTagRecord(tag: tag, videoId: id)) }
            try await extra(transaction)
            let changes = try record.video.changes(from: before)
            guard !changes.isEmpty else { return record.video }
            try await transaction.save(record)
            _ = try await transaction.append([Self.event(VideoStream.updated, ["videoId": .string(id), "changes": .dictionary(changes)])])
            return record.video
        }
    }
}
