import GreenroomProtocol
import Hummingbird

extension ChatCapability {
    /// What the app's backend (and the console) reads and fixes with the API key: every
    /// channel, a channel's members and recent messages; a message deleted, a member removed.
    func addAdminRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/channels", for: .backend)
        let chat = service
        group.get { request, _ in
            var query = RecordQuery(kind: ChannelRecord.recordKind)
            query.descending = true
            query.after = try request.cursorQuery()
            let limit = try request.integerQuery("limit", in: 1...100) ?? 20
            let (page, next) = try await chat.storage.page(ChannelRecord.self, query, limit: limit)
            return try jsonResponse(Page(items: page.map(\.channel), next: next))
        }
        group.get(":id/members") { request, context in
            let id = ChannelId(try context.pathParameter("id"))
            _ = try await ChatService.channel(chat.storage, id)
            let members = try await chat.storage.list(MemberRecord.self, RecordQuery(kind: MemberRecord.recordKind, scope: id.rawValue, limit: 10_000))
            return try jsonResponse(members.map(\.member))
        }
        group.delete(":id/members/:userId") { request, context in
            try await chat.leave(ChannelId(try context.pathParameter("id")), userId: try context.pathParameter("userId"), byBackend: true)
            return Response(status: .noContent)
        }
        group.get(":id/messages") { request, context in
            let id = ChannelId(try context.pathParameter("id"))
            _ = try await ChatService.channel(chat.storage, id)
            var query = RecordQuery(kind: MessageRecord.recordKind, scope: id.rawValue)
            query.descending = true
            query.limit = try request.integerQuery("limit", in: 1...100) ?? 20
            let newest = try await chat.storage.list(MessageRecord.self, query)
            return try jsonResponse(Array(newest.reversed().map(\.message)))
        }
        group.delete(":id/messages/:messageId") { request, context in
            let ref = MessageRef(channelId: ChannelId(try context.pathParameter("id")), messageId: try context.pathParameter("messageId"))
            return try jsonResponse(try await chat.deleteMessage(ref, by: nil))
        }
    }
}
