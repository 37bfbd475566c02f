import Foundation

/// Where a video is in its life.
public enum VideoStatus: String, Codable, Sendable, Hashable, CaseIterable {
    /// Its bytes are arriving.
    case uploading
    /// Uploaded; being read, thumbnailed and encoded.
    case processing
    /// Playable: its HLS renditions are encoded.
    case ready
    /// Processing failed; `failureReason` says why.
    case failed
}

/// A video of the feed.
public struct Video: Codable, Sendable, Hashable, Identifiable {
    /// The video's id.
    public var id: String
    /// The identity that created it (the only one that may edit or delete it).
    public var owner: String
    /// Its title.
    public var title: String
    /// Its tags.
    public var tags: [String]
    /// Where it is in its life.
    public var status: VideoStatus
    /// Why processing failed.
    public var failureReason: String?
    /// The picture's width, once processed.
    public var width: Int?
    /// The picture's height, once processed.
    public var height: Int?
    /// The length in seconds, once processed.
    public var duration: Double?
    /// The video codec, once processed.
    public var codec: String?
    /// The file's size in bytes, once uploaded.
    public var size: Int64?
    /// Where the thumbnail is served (path on the server), once processed.
    public var thumbnailURL: String?
    /// Where the file is served as uploaded (path on the server, Range requests accepted), once uploaded.
    public var playbackURL: String?
    /// Where its HLS master playlist is served (path on the server), once encoded: what
    /// AVPlayer, Safari, hls.js and ffplay play, whatever the upload's container and codec.
    public var hlsURL: String?
    /// Its HLS renditions (H.264 and AAC), smallest first, once encoded.
    public var renditions: [VideoRendition]?
    /// When it was created.
    public var createdAt: Date
    /// When it last changed.
    public var updatedAt: Date
    /// The app's own data, at most 5 KB.
    public var extraData: [String: RawJSON]

    /// Makes a video.
    public init(id: String, owner: String, title: String, tags: [String] = [], status: VideoStatus, failureReason: String? = nil,
                width: Int? = nil, height: Int? = nil, duration: Double? = nil, codec: String? = nil, size: Int64? = nil,
                thumbnailURL: String? = nil, playbackURL: String? = nil, hlsURL: String? = nil, renditions: [VideoRendition]? = nil,
                createdAt: Date, updatedAt: Date, extraData: [String: RawJSON] = [:]) {
        self.id = id
        self.owner = owner
        self.title = title
        self.tags = tags
        self.status = status
        self.failureReason = failureReason
        self.width = width
        self.height = height
        self.duration = duration
        self.codec = codec
        self.size = size
        self.thumbnailURL = thumbnailURL
        self.playbackURL = playbackURL
        self.hlsURL = hlsURL
        self.renditions = renditions
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.extraData = extraData
    }

    /// The fields of `self` that differ from `old`, as the `changes` of an update event.
    public func changes(from old: Video) throws -> [String: RawJSON] {
        guard case .dictionary(let new) = try RawJSON(encoding: self), case .dictionary(let before) = try RawJSON(encoding: old) else { return [:] }
        var changes: [String: RawJSON] = [:]
        for key in Set(new.keys).union(before.keys) where new[key] != before[key] && key != "updatedAt" {
            changes[key] = new[key] ?? .nil
        }
        return changes
    }

    /// This video with `changes` applied (as received in an update event).
    public func applying(_ changes: [String: RawJSON]) throws -> Video {
        guard case .dictionary(var fields) = try RawJSON(encoding: self) else { return self }
        for (key, value) in changes { fields[key] = value.isNil ? nil : value }
        return try RawJSON.dictionary(fields).decode(as: Video.self)
    }
}

/// One HLS rendition of a video: H.264 video (with AAC audio when the upload has sound) at
/// one size, in segments of about two seconds.
public struct VideoRendition: Codable, Sendable, Hashable {
    /// Its name, the shorter side of the picture: `360p`, `720p`.
    public var name: String
    /// The picture's width.
    public var width: Int
    /// The picture's height.
    public var height: Int
    /// The peak bits per second announced in the master playlist.
    public var bandwidth: Int
    /// Where its media playlist is served (path on the server).
    public var playlistURL: String

    /// Makes a rendition.
    public init(name: String, width: Int, height: Int, bandwidth: Int, playlistURL: String) {
        self.name = name
        self.width = width
        self.height = height
        self.bandwidth = bandwidth
        self.playlistURL = playlistURL
    }
}

/// The video feed's stream; sessions with `videos.read` may follow it.
public enum VideoStream {
    /// The stream's name.
    public static let name = "videos"
    /// A video was created: `{video}`.
    public static let created = "video.created"
    /// A video changed: `{videoId, changes}` (only the changed fields).
    public static let updated = "video.updated"
    /// A video was deleted: `{videoId}`.
    public static let deleted = "video.deleted"
}

/// The token scopes of the video feed.
public enum VideoScope {
    /// List, read and play videos; follow the feed.
    public static let read = "videos.read"
    /// Upload videos.
    public static let create = "videos.create"
    /// Edit one's own videos.
    public static let edit = "videos.edit"
    /// Delete one's own videos.
    public static let delete = "videos.delete"
}

/// The body of `POST /v1/videos`.
public struct VideoCreateArgs: Codable, Sendable, Hashable {
    /// The title.
    public var title: String?
    /// Tags.
    public var tags: [String]?
    /// The app's own data.
    public var extraData: [String: RawJSON]?
    /// The file's size in bytes, when known (checked against the limit at once).
    public var size: Int64?

    /// Makes the arguments.
    public init(title: String? = nil, tags: [String]? = nil, extraData: [String: RawJSON]? = nil, size: Int64? = nil) {
        self.title = title
        self.tags = tags
        self.extraData = extraData
        self.size = size
    }
}

/// What creating a video returns: the video and where its bytes go.
public struct VideoUploadTicket: Codable, Sendable, Hashable {
    /// The video (status `uploading`).
    public var video: Video
    /// The upload's id: `PATCH /v1/uploads/{uploadId}` with `Upload-Offset`.
    public var uploadId: String
    /// How many bytes the server holds.
    public var offset: Int64

    /// Makes the ticket.
    public init(video: Video, uploadId: String, offset: Int64) {
        self.video = video
        self.uploadId = uploadId
        self.offset = offset
    }
}

/// The body of `PATCH /v1/videos/{id}`: the fields given replace the stored ones.
public struct VideoUpdateArgs: Codable, Sendable, Hashable {
    /// A new title.
    public var title: String?
    /// New tags.
    public var tags: [String]?
    /// New extra data (replaced whole).
    public var extraData: [String: RawJSON]?

    /// Makes the arguments.
    public init(title: String? = nil, tags: [String]? = nil, extraData: [String: RawJSON]? = nil) {
        self.title = title
        self.tags = tags
        self.extraData = extraData
    }
}

/// A page of the feed, with the number of videos matching the filters.
public struct VideoPage: Codable, Sendable, Hashable {
    /// This page's videos.
    public var items: [Video]
    /// The cursor of the next page; `nil` on the last.
    public var next: String?
    /// How many videos match the filters in all.
    public var totalCount: Int

    /// Makes a page.
    public init(items: [Video], next: String?, totalCount: Int) {
        self.items = items
        self.next = next
        self.totalCount = totalCount
    }
}
