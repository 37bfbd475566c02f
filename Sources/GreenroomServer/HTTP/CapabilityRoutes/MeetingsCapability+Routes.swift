import GreenroomProtocol
import Hummingbird
import Logging
import ServiceLifecycle

extension MeetingsCapability: CapabilityRoutes {
    /// `POST /v1/meetings` creates a meeting, `GET /v1/meetings/{id}` reads it with its
    /// participants (API key).
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/meetings", for: .backend)
        let meetings = service
        group.post { request, context in
            struct Args: Decodable { var meetingId: String? }
            let args = try await request.decode(as: Args.self, context: context)
            let meeting = try await meetings.create(args.meetingId ?? "m" + RandomHex.string(bytes: 8), by: "backend")
            return try jsonResponse(meeting, status: .created)
        }
        group.get("{id}") { request, context in
            return try jsonResponse(try await meetings.current(try context.pathParameter("id")))
        }
        // Every meeting, newest first, with its participants (the console's list).
        group.get { request, _ in
            var query = RecordQuery(kind: MeetingRecord.recordKind)
            query.descending = true
            query.after = try request.cursorQuery()
            let limit = try request.integerQuery("limit", in: 1...100) ?? 20
            let (page, next) = try await meetings.storage.page(MeetingRecord.self, query, limit: limit)
            var items: [MeetingData] = []
            for record in page { items.append(try await meetings.current(record.meeting.meetingId)) }
            return try jsonResponse(Page(items: items, next: next))
        }
        // The app's backend ends a meeting as a moderator would.
        group.post("{id}/end") { request, context in
            let id = try context.pathParameter("id")
            try await meetings.end(id, identity: .backend)
            return try jsonResponse(try await meetings.current(id))
        }
        // The app's backend records a meeting as a moderator would, for the user it names.
        group.post("{id}/recording/start") { request, context in
            struct Args: Decodable { var owner: String }
            let args = try await request.decode(as: Args.self, context: context)
            return try jsonResponse(try await meetings.startRecording(try context.pathParameter("id"), identity: .backend, owner: args.owner))
        }
        group.post("{id}/recording/stop") { request, context in
            return try jsonResponse(try await meetings.stopRecording(try context.pathParameter("id"), identity: .backend))
        }
    }
}
