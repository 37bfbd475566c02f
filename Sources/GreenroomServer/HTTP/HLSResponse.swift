import Foundation
import Hummingbird

/// An HLS playlist or MPEG-TS segment as a response (videos' renditions, livestreams).
enum HLSResponse {
    /// How long a resource token a playlist names lasts: a live playlist is fetched again
    /// every few seconds (each time with fresh ones), a video's rendition playlist once, so
    /// it covers the video's length and some.
    static func resourceTokenLifetime(duration: Double?) -> TimeInterval {
        guard let duration, duration.isFinite, duration > 0 else { return 600 }
        return min(600 + duration * 2, 12 * 3_600)
    }

    /// The file at `file`. A playlist asked for with `?token=` (a player that cannot set
    /// headers) names its files with `resourceToken`: a short-lived token for this
    /// resource alone (``ResourceTokenIssuer/resourceToken(for:scope:ttl:)``), never the
    /// session's own, which would otherwise sit in every URL a proxy, a Referer or a history
    /// keeps; a player resolves the files against the playlist's URL without its query.
    static func make(_ request: Request, file: URL, resourceToken: () async throws -> String) async throws -> Response {
        let data = try Data(contentsOf: file)
        guard file.pathExtension == "m3u8" else {
            return Response(status: .ok, headers: [.contentType: "video/mp2t", .contentLength: String(data.count)], body: .init(byteBuffer: ByteBuffer(data: data)))
        }
        var playlist = String(decoding: data, as: UTF8.self)
        if request.uri.queryParameters["token"] != nil,
           let encoded = try await resourceToken().addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) {
            playlist = playlist.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.isEmpty || line.hasPrefix("#") ? String(line) : "\(line)?token=\(encoded)" }
                .joined(separator: "\n")
        }
        return Response(status: .ok, headers: [.contentType: "application/vnd.apple.mpegurl", .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(string: playlist)))
    }
}
