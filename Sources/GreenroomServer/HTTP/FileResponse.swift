import Foundation
import GreenroomProtocol
import HTTPTypes
import Hummingbird

/// A file on this node's disk as a response, honouring a single `Range: bytes=a-b` (206,
/// or 416 for a range outside the file), streamed in 64 KiB reads.
enum FileResponse {
    static func make(_ request: Request, url: URL, size: Int64, contentType: String, headers extra: HTTPFields = [:]) -> Response {
        var start: Int64 = 0
        var end = size - 1
        var status: HTTPResponse.Status = .ok
        if let range = request.headers[.range] {
            guard let parsed = RequestParsing.byteRange(range, size: size) else {
                return Response(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */\(size)"])
            }
            (start, end) = parsed
            status = .partialContent
        }
        let length = max(0, end - start + 1)
        let first = start
        var headers: HTTPFields = [.contentType: contentType, .acceptRanges: "bytes", .contentLength: String(length)]
        headers.append(contentsOf: extra)
        if status == .partialContent { headers[.contentRange] = "bytes \(first)-\(end)/\(size)" }
        let body = ResponseBody(contentLength: Int(length)) { writer in
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(first))
            var remaining = length
            while remaining > 0 {
                let chunk = try handle.read(upToCount: Int(min(remaining, 64 * 1024))) ?? Data()
                if chunk.isEmpty { break }
                remaining -= Int64(chunk.count)
                try await writer.write(ByteBuffer(data: chunk))
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }
}
