import Foundation
import Hummingbird

/// An HLS playlist or MPEG-TS segment as a response (videos' renditions, livestreams).
enum HLSResponse {
    /// The file at `file`. A playlist asked for with `?token=` (a player that cannot set
    /// headers) names its files with the same token, since a player resolves them against
    /// the playlist's URL without its query.
    static func make(_ request: Request, file: URL) throws -> Response {
        let data = try Data(contentsOf: file)
        guard file.pathExtension == "m3u8" else {
            return Response(status: .ok, headers: [.contentType: "video/mp2t", .contentLength: String(data.count)], body: .init(byteBuffer: ByteBuffer(data: data)))
        }
        var playlist = String(decoding: data, as: UTF8.self)
        if let token = request.uri.queryParameters["token"].map(String.init),
           let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) {
            playlist = playlist.split(separator: "\n", omittingEmptySubsequences: false)
                .map { line in line.isEmpty || line.hasPrefix("#") ? String(line) : "\(line)?token=\(encoded)" }
                .joined(separator: "\n")
        }
        return Response(status: .ok, headers: [.contentType: "application/vnd.apple.mpegurl", .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(string: playlist)))
    }
}
