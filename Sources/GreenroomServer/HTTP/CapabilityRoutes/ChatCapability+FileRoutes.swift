import GreenroomProtocol
import HTTPTypes
import Hummingbird

extension ChatCapability {
    /// `/v1/files`: a member uploads an attachment for a channel (its bytes go through the
    /// resumable upload routes), and the channel's members (or the app's backend) read it.
    /// Bytes are served so that no browser runs them: a file as a download
    /// (`Content-Disposition: attachment`), an image as the type it decoded as, each with
    /// `nosniff` and a sandboxing content security policy.
    func addFileRoutes(_ routes: RestRoutes) {
        let files = files
        routes.group("/v1/files", for: .user).post { request, context in
            let args = try await request.decode(as: FileCreateArgs.self, context: context)
            return try jsonResponse(try await files.create(args, identity: try context.caller()), status: .created)
        }
        let reading = routes.group("/v1/files", for: .userOrBackend)
        reading.get("{id}") { request, context in
            try jsonResponse(try await files.attachment(try context.pathParameter("id"), identity: try context.caller()).file)
        }
        reading.get("{id}/file") { request, context in
            try await Self.serve(files, request, context, thumbnail: false)
        }
        reading.get("{id}/thumbnail") { request, context in
            try await Self.serve(files, request, context, thumbnail: true)
        }
    }

    static func serve(_ files: ChatFiles, _ request: Request, _ context: GreenroomRequestContext, thumbnail: Bool) async throws -> Response {
        let (url, size, file) = try await files.content(try context.pathParameter("id"), thumbnail: thumbnail, identity: try context.caller())
        var headers: HTTPFields = [.init("X-Content-Type-Options")!: "nosniff", .contentSecurityPolicy: "sandbox; default-src 'none'"]
        let type: String
        if thumbnail {
            type = "image/jpeg"
        } else if file.type == .image {
            type = file.mimeType
        } else {
            type = file.mimeType
            let name = file.name.replacingOccurrences(of: "\"", with: "'").unicodeScalars.filter(\.isASCII).map(String.init).joined()
            let encoded = file.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            headers[.contentDisposition] = "attachment; filename=\"\(name)\"; filename*=UTF-8''\(encoded)"
        }
        return FileResponse.make(request, url: url, size: size, contentType: type, headers: headers)
    }
}
