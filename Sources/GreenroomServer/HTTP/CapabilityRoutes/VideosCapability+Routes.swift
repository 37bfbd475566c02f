import Foundation
import GreenroomProtocol
import HTTPTypes
import Hummingbird

extension VideosCapability: CapabilityRoutes {
    /// The video feed's REST routes, authenticated with the session's token (header, or
    /// `?token=` for players that cannot set headers).
    func addRoutes(_ routes: RestRoutes) {
        let tokens = routes.resourceTokens
        let service = service
        // Only a user uploads; the app's backend reads and edits too.
        routes.group("/v1/videos", for: .user).post { request, context in
            let identity = try context.caller()
            let args = try await request.decode(as: VideoCreateArgs.self, context: context)
            return try jsonResponse(try await service.create(args, identity: identity), status: .created)
        }
        let videos = routes.group("/v1/videos", for: .userOrBackend)
        videos.get { request, context in
            let identity = try context.caller()
            let query = request.uri.queryParameters
            let status = try query["status"].map { text -> VideoStatus in
                guard let status = VideoStatus(rawValue: String(text)) else { throw GreenroomError(.invalidParameterValue, "unknown status \(text)") }
                return status
            }
            let limit: Int? = try request.integerQuery("limit")
            return try jsonResponse(try await service.list(
                owner: query["owner"].map(String.init), status: status, tag: query["tag"].map(String.init),
                oldestFirst: query["sort"] == "oldest", limit: limit, cursor: query["cursor"].map(String.init), identity: identity))
        }
        videos.get("{id}") { request, context in
            try jsonResponse(try await service.get(try context.pathParameter("id"), identity: try context.caller()))
        }
        videos.patch("{id}") { request, context in
            let identity = try context.caller()
            let args = try await request.decode(as: VideoUpdateArgs.self, context: context)
            return try jsonResponse(try await service.update(try context.pathParameter("id"), args, identity: identity))
        }
        videos.delete("{id}") { request, context in
            try await service.delete(try context.pathParameter("id"), identity: try context.caller())
            return Response(status: .noContent)
        }
        videos.get("{id}/file") { request, context in
            try await Self.serveFile(service, try context.caller(), request, id: try context.pathParameter("id"), thumbnail: false)
        }
        videos.get("{id}/thumbnail") { request, context in
            try await Self.serveFile(service, try context.caller(), request, id: try context.pathParameter("id"), thumbnail: true)
        }
        videos.get("{id}/index.m3u8") { request, context in
            try await Self.serveHLS(service, tokens, try context.caller(), request, id: try context.pathParameter("id"), path: "index.m3u8")
        }
        videos.get("{id}/hls/{rendition}/{file}") { request, context in
            let path = "\(try context.pathParameter("rendition"))/\(try context.pathParameter("file"))"
            return try await Self.serveHLS(service, tokens, try context.caller(), request, id: try context.pathParameter("id"), path: path)
        }
    }

    /// Serves a playlist or segment of a video's HLS renditions. A playlist asked for with
    /// `?token=` (a player that cannot set headers) names its files with a token for this
    /// video's files alone (``HLSResponse``).
    static func serveHLS(_ service: VideoService, _ tokens: any ResourceTokenIssuer, _ identity: Identity, _ request: Request, id: String, path: String) async throws -> Response {
        let file = try await service.hlsFile(id, path: path, identity: identity)
        return try await HLSResponse.make(request, file: file) {
            let duration = try await service.storage.load(VideoRecord.self, id: id)?.video.duration
            return try await tokens.resourceToken(for: identity, scope: "/v1/videos/\(id)/", ttl: HLSResponse.resourceTokenLifetime(duration: duration))
        }
    }

    /// Serves a video's file or thumbnail, honouring a single `Range: bytes=a-b`.
    static func serveFile(_ service: VideoService, _ identity: Identity, _ request: Request, id: String, thumbnail: Bool) async throws -> Response {
        let (url, size) = try await service.file(id, thumbnail: thumbnail, identity: identity)
        return FileResponse.make(request, url: url, size: size, contentType: thumbnail ? "image/jpeg" : "video/mp4")
    }
}
