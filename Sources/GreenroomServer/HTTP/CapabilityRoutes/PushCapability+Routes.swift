import Foundation
import GreenroomProtocol
import Hummingbird
import NIOFoundationCompat

extension PushCapability: CapabilityRoutes {
    /// `/v1/push/template`: the app's notification text (API key).
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/push/template", for: .backend)
        let events = events, storage = storage
        group.get { _, _ in
            return try jsonResponse(try await storage.load(PushTemplateRecord.self, id: PushTemplateRecord.onlyId)?.template ?? PushTemplate())
        }
        group.put { request, context in
            let template = try await request.decode(as: PushTemplate.self, context: context)
            try template.validate()
            try await events.transact { transaction in try await transaction.save(PushTemplateRecord(template: template)) }
            return try jsonResponse(template)
        }
        group.delete { _, _ in
            _ = try await events.transact { transaction in
                try await transaction.remove(PushTemplateRecord.self, id: PushTemplateRecord.onlyId)
            }
            return Response(status: .noContent)
        }
    }
}
