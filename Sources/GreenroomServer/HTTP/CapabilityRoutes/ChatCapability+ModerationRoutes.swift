import GreenroomProtocol
import Hummingbird

extension ChatCapability {
    /// What the app's backend (API key) and the console moderate with: a channel's bans,
    /// mutes, freeze and slow mode, the review queue of reports, and the app's blocklist. The same service as the operators'
    /// WebSocket operations does the work, with the operator check skipped.
    func addModerationRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/channels", for: .backend)
        let chat = service
        group.post(":id/bans") { request, context in
            var body = try await Self.object(request, context)
            body["channelId"] = .string(try context.pathParameter("id"))
            let args = try RawJSON.dictionary(body).decode(as: BanArgs.self)
            return try jsonResponse(try await chat.ban(args, by: nil), status: .created)
        }
        group.get(":id/bans") { request, context in
            let args = try Self.channelPage(request, context)
            return try jsonResponse(try await chat.bannedMembers(args, by: nil))
        }
        group.delete(":id/bans/:userId") { _, context in
            try await chat.unban(ChannelUserArgs(channelId: ChannelId(try context.pathParameter("id")), userId: try context.pathParameter("userId")), by: nil)
            return Response(status: .noContent)
        }
        group.post(":id/mutes") { request, context in
            var body = try await Self.object(request, context)
            body["channelId"] = .string(try context.pathParameter("id"))
            let args = try RawJSON.dictionary(body).decode(as: MuteArgs.self)
            return try jsonResponse(try await chat.mute(args, by: nil), status: .created)
        }
        group.get(":id/mutes") { request, context in
            let args = try Self.channelPage(request, context)
            return try jsonResponse(try await chat.mutedMembers(args, by: nil))
        }
        group.delete(":id/mutes/:userId") { _, context in
            _ = try await chat.unmute(ChannelUserArgs(channelId: ChannelId(try context.pathParameter("id")), userId: try context.pathParameter("userId")), by: nil)
            return Response(status: .noContent)
        }
        group.post(":id/freeze") { request, context in
            var body = try await Self.object(request, context)
            body["channelId"] = .string(try context.pathParameter("id"))
            return try jsonResponse(try await chat.freeze(try RawJSON.dictionary(body).decode(as: FreezeArgs.self), by: nil))
        }
        group.post(":id/slow-mode") { request, context in
            var body = try await Self.object(request, context)
            body["channelId"] = .string(try context.pathParameter("id"))
            return try jsonResponse(try await chat.setSlowMode(try RawJSON.dictionary(body).decode(as: SlowModeArgs.self), by: nil))
        }
        let reports = routes.group("/v1/moderation/reports", for: .backend)
        reports.get { request, _ in
            let state = try request.uri.queryParameters["state"].map { raw in
                guard let state = ReportState(rawValue: String(raw)) else {
                    throw GreenroomError(.invalidParameterValue, "state must be open or resolved")
                }
                return state
            } ?? .open
            return try jsonResponse(try await chat.reports(state: state, limit: try request.integerQuery("limit"),
                                                           cursor: request.uri.queryParameters["cursor"].map(String.init)))
        }
        reports.get(":id") { _, context in
            try jsonResponse(try await chat.reportDetail(try context.pathParameter("id")))
        }
        reports.post(":id/resolve") { request, context in
            let args = try await request.decode(as: ReportResolveArgs.self, context: context)
            return try jsonResponse(try await chat.resolveReport(try context.pathParameter("id"), args))
        }
        let blocklist = routes.group("/v1/moderation/blocklist", for: .backend)
        blocklist.get { _, _ in try jsonResponse(try await chat.blocklist()) }
        blocklist.put { request, context in
            try jsonResponse(try await chat.setBlocklist(try await request.decode(as: Blocklist.self, context: context)))
        }
    }

    /// The channel of the path and the page of the query (`limit`, `cursor`).
    private static func channelPage(_ request: Request, _ context: GreenroomRequestContext) throws -> ChannelPageArgs {
        ChannelPageArgs(channelId: ChannelId(try context.pathParameter("id")),
                        limit: try request.integerQuery("limit"), cursor: request.uri.queryParameters["cursor"].map(String.init))
    }
}
