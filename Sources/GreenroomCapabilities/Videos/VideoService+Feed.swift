import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension VideoService {
    /// One video (`videos.read`).
    package func get(_ id: String, identity: Identity) async throws -> Video {
        try Self.require(identity, VideoScope.read)
        return try await Self.load(storage, id).video
    }

    /// The feed filtered by owner, status and tag, newest (or oldest) first, in cursor pages,
    /// with the number of videos matching (`videos.read`).
    package func list(owner: String?, status: VideoStatus?, tag: String?, oldestFirst: Bool, limit: Int?, cursor: String?, identity: Identity) async throws -> VideoPage {
        try Self.require(identity, VideoScope.read)
        let limit = try Paging.limit(limit)
        var query = RecordQuery(kind: VideoRecord.recordKind)
        query.descending = !oldestFirst
        query.tags = status.map { [$0.rawValue] }
        if let tag {
            query.via = (VideoTagRecord.recordKind, tag, nil)
            if let owner {
                query.ids = try await storage.list(VideoOwnerRecord.self, RecordQuery(kind: VideoOwnerRecord.recordKind, scope: owner, limit: 100_000)).map(\.videoId)
            }
        } else if let owner {
            query.via = (VideoOwnerRecord.recordKind, owner, nil)
        }
        let total = try await storage.countRecords(query)
        query.after = try cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(VideoRecord.self, query, limit: limit)
        return VideoPage(items: page.map(\.video), next: next, totalCount: total)
    }

    /// Changes title, tags and extra data (the owner, with `videos.edit`).
    package func update(_ id: String, _ args: VideoUpdateArgs, identity: Identity) async throws -> Video {
        try Self.require(identity, VideoScope.edit)
        try Self.validate(title: args.title, tags: args.tags, extraData: args.extraData)
        try await requireOwner(id, identity)
        return try await change(id) { video in
            if let title = args.title { video.title = title }
            if let tags = args.tags { video.tags = Array(Set(tags)).sorted() }
            if let extra = args.extraData { video.extraData = extra }
        }
    }

    /// Deletes a video and its files (the owner, with `videos.delete`).
    package func delete(_ id: String, identity: Identity) async throws {
        try Self.require(identity, VideoScope.delete)
        try await requireOwner(id, identity)
        try await events.transact { transaction in
            let record = try await Self.load(transaction, id)
            try await transaction.remove(VideoRecord.self, id: id)
            try await transaction.remove(VideoOwnerRecord.self, scope: record.video.owner, id: id)
            for tag in record.video.tags { try await transaction.remove(VideoTagRecord.self, scope: tag, id: id) }
            _ = try await transaction.append([Self.event(VideoStream.deleted, ["videoId": .string(id)])])
        }
        try? FileManager.default.removeItem(at: folder(id))
    }

    private func requireOwner(_ id: String, _ identity: Identity) async throws {
        let video = try await Self.load(storage, id).video
        guard video.owner == identity.userId || identity.isBackend else {
            throw GreenroomError(.permissionDenied, "only \(video.owner), who created video \(id), may change it")
        }
    }

    /// The file of a video that holds `videos.read` may read, and its size.
    package func file(_ id: String, thumbnail wantsThumbnail: Bool, identity: Identity) async throws -> (URL, Int64) {
        try Self.require(identity, VideoScope.read)
        let video = try await Self.load(storage, id).video
        let url = wantsThumbnail ? thumbnail(id) : original(id)
        guard wantsThumbnail ? video.thumbnailURL != nil : video.status != .uploading,
              let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value else {
            throw GreenroomError(.notFound, "video \(id) has no \(wantsThumbnail ? "thumbnail" : "file") yet")
        }
        return (url, size)
    }
}
