import GreenroomProtocol
import Hummingbird

extension ChatCapability: CapabilityRoutes {
    /// `/v1/channels`: the app's backend (API key) creates channels with their members and
    /// operators, reads and partially updates them, and sends and partially updates messages
    /// as a user. The same service as the WebSocket operations does the work, so the limits,
    /// checks and events are the same; only the operator and sender checks are the
    /// backend's to skip (a message is still sent by a joined member).
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/channels", for: .backend)
        let chat = service
        group.post { request, context in
            let body = try await Self.object(request, context)
            guard let creator = body["createdBy"]?.stringValue else {
                throw GreenroomError(.invalidParameterValue, "createdBy is required: the user who creates the channel (its first operator)")
            }
            try await chat.requireUsers([creator])
            let args = try RawJSON.dictionary(body).decode(as: ChannelCreateArgs.self)
            return try jsonResponse(try await chat.create(args, by: creator), status: .created)
        }
        group.get(":id") { request, context in
            let id = ChannelId(try context.pathParameter("id"))
            return try jsonResponse(try await ChatService.channel(chat.storage, id).channel)
        }
        group.patch(":id") { request, context in
            var body = try await Self.object(request, context)
            body["channelId"] = .string(try context.pathParameter("id"))
            let args = try RawJSON.dictionary(body).decode(as: ChannelPartialUpdateArgs.self)
            return try jsonResponse(try await chat.partialUpdate(args, by: nil))
        }
        group.post(":id/messages") { request, context in
            var body = try await Self.object(request, context)
            guard let sender = body["userId"]?.stringValue else {
                throw GreenroomError(.invalidParameterValue, "userId is required: the member the message is sent as")
            }
            body["channelId"] = .string(try context.pathParameter("id"))
            let args = try RawJSON.dictionary(body).decode(as: MessageSendArgs.self)
            return try jsonResponse(try await chat.send(args, by: sender), status: .created)
        }
        group.patch(":id/messages/:messageId") { request, context in
            var body = try await Self.object(request, context)
            body["channelId"] = .string(try context.pathParameter("id"))
            body["messageId"] = .string(try context.pathParameter("messageId"))
            let args = try RawJSON.dictionary(body).decode(as: MessagePartialUpdateArgs.self)
            return try jsonResponse(try await chat.partialUpdateMessage(args, by: nil))
        }
        // A user's own call, for a notification extension that opens no WebSocket: the
        // message named by the push reached this device.
        routes.group("/v1/channels", for: .user).post(":id/delivered") { request, context in
            let identity = try context.caller()
            let body = try await Self.object(request, context)
            guard let messageId = body["messageId"]?.stringValue else {
                throw GreenroomError(.invalidParameterValue, "messageId is required: the message the push named")
            }
            let args = MarkDeliveredArgs(channelId: ChannelId(try context.pathParameter("id")), messageId: messageId)
            return try jsonResponse(try await chat.markDelivered(args, by: identity.userId))
        }
        addAdminRoutes(routes)
        addModerationRoutes(routes)
        addFileRoutes(routes)
    }

    /// The request's body as a JSON object. - Throws: `invalidParameterValue` otherwise.
    static func object(_ request: Request, _ context: GreenroomRequestContext) async throws -> [String: RawJSON] {
        guard let object = try await request.decode(as: RawJSON.self, context: context).dictionaryValue else {
            throw GreenroomError(.invalidParameterValue, "the body must be a JSON object")
        }
        return object
    }
}
