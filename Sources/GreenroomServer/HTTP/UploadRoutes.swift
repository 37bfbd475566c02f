import GreenroomProtocol
import HTTPTypes
import Hummingbird

extension ServerCore {
    /// The resumable upload's offset header (as tus names it).
    static let uploadOffset = HTTPField.Name("Upload-Offset")!

    /// The resumable upload routes, `/v1/uploads/{id}`, shared by every kind of upload:
    /// the id's first letter names the kind (``UploadHost``); each kind checks the caller.
    func addUploadRoutes(_ routes: RestRoutes) {
        var kinds: [any UploadHost] = []
        for case let hosting as any UploadHosting in capabilities { kinds += hosting.uploadHosts }
        let hosts = kinds
        @Sendable func host(_ id: String) throws -> any UploadHost {
            guard let first = id.first, let host = hosts.first(where: { $0.uploadPrefix == first }) else {
                throw GreenroomError(.notFound, "no upload with id \(id)")
            }
            return host
        }
        let uploads = routes.group("/v1/uploads", for: .user)
        uploads.get("{id}") { request, context in
            let id = try context.pathParameter("id")
            return try jsonResponse(["offset": try await host(id).uploadOffset(id, identity: try context.caller())])
        }
        uploads.patch("{id}") { request, context in
            let id = try context.pathParameter("id")
            let offset = try RequestParsing.uploadOffset(request.headers[Self.uploadOffset])
            let reached = try await host(id).appendUpload(id, at: offset, body: request.body.map(\.readableBytesView), identity: try context.caller())
            return try jsonResponse(["offset": reached])
        }
        uploads.post("{id}/complete") { request, context in
            let id = try context.pathParameter("id")
            return try jsonResponse(try await host(id).completeUpload(id, identity: try context.caller()))
        }
    }
}
