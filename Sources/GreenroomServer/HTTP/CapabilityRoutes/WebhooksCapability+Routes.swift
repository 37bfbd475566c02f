import Foundation
import GreenroomProtocol
import Hummingbird
import NIOFoundationCompat
import ServiceLifecycle

extension WebhooksCapability: CapabilityRoutes {
    /// `/v1/webhooks`: endpoints and their parked deliveries, with the API key.
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/webhooks", for: .backend)
        let service = service
        group.post { request, context in
            let args = try await request.decode(as: WebhookCreateArgs.self, context: context)
            return try jsonResponse(try await service.create(args), status: .created)
        }
        group.get { request, _ in
            return try jsonResponse(try await service.list())
        }
        group.get("{id}") { request, context in
            return try jsonResponse(try await service.get(try context.pathParameter("id")))
        }
        group.delete("{id}") { request, context in
            try await service.delete(try context.pathParameter("id"))
            return Response(status: .noContent)
        }
        group.get("{id}/parked") { request, context in
            let limit = try request.integerQuery("limit", in: 1...500) ?? 100
            let cursor = request.uri.queryParameters["cursor"].map(String.init)
            return try jsonResponse(try await service.parked(try context.pathParameter("id"), limit: limit, cursor: cursor))
        }
        group.post("{id}/replay") { request, context in
            let body = try await request.body.collect(upTo: 64 * 1024)
            let args = body.readableBytes == 0 ? nil : try WireCoding.decode(WebhookReplayArgs.self, from: Data(buffer: body))
            return try jsonResponse(try await service.replay(try context.pathParameter("id"), deliveryId: args?.deliveryId))
        }
    }
}
