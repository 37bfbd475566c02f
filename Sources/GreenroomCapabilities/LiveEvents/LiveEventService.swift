import Foundation
import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

/// The rules of live events: the state machine, who may do what, hosts and participants
/// (kept in the roster, across nodes), custom items and reactions; counts are exact in
/// storage and announced at most once a second.
package struct LiveEventService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let roster: Roster
    /// How long a host whose connection dropped stays (disconnected) before it has exited.
    package let grace: TimeInterval
    /// The event's media room: told when a host exits and when the event ends.
    package let media: MediaPlane
    /// The live events' HLS livestreams: one runs while an event is `ongoing`.
    package let livestreams: LivestreamEngine
    /// Live events whose counts or reactions changed on this node since the last announcement.
    package let pending = PendingSet()

    package static let participantRole = "participant"
    package static let hostRole = "host"
    package static func participantKey(_ userId: String) -> String { "participant:\(userId)" }
    package static func hostKey(_ userId: String) -> String { "host:\(userId)" }

    // MARK: Reading

    package static func load(_ reader: any RecordReading, _ id: String) async throws -> LiveEventRecord {
        guard let record = try await reader.load(LiveEventRecord.self, id: id) else {
            throw GreenroomError(.liveEventIdNotFound, "no live event with id \(id)")
        }
        return record
    }

    /// The event with its participant count (exact at this moment).
    package func current(_ id: String) async throws -> LiveEventData {
        let record = try await Self.load(storage, id)
        var event = record.event
        event.participantCount = try await Self.inside(record, in: storage)
        event.livestream = try await storage.load(LivestreamRecord.self, id: event.stream)?.info
        event.recording = try await storage.load(RecordingRecord.self, id: event.stream)?.info
        return event
    }

    /// How many participants are inside `record`'s event, whichever node holds them: the
    /// count the record keeps, or for a record stored before it kept one, the roster's
    /// entries counted as `reader` (the storage, or a transaction) sees them.
    package static func inside(_ record: LiveEventRecord, in reader: any PresenceReading) async throws -> Int {
        if let inside = record.inside { return inside }
        return try await reader.presenceCount(stream: record.event.stream, clientIdPrefix: participantKey(""))
    }

    /// Keeps `record`'s count after a participant's entry was put (`delta` 1) or removed
    /// (-1) in `transaction`; the caller saves the record in the same transaction.
    package static func count(_ delta: Int, into record: inout LiveEventRecord, in transaction: any StorageTransaction) async throws {
        if let inside = record.inside {
            record.inside = max(0, inside + delta)
        } else {
            // Counted from the roster, which already holds the change.
            record.inside = try await Self.inside(record, in: transaction)
        }
    }

    package func get(_ id: String) async throws -> LiveEventData {
        try await current(id)
    }

    /// Live events, newest first, filtered by state, creator and ids.
    package func list(_ args: LiveEventListArgs) async throws -> Page<LiveEventData> {
        let limit = try Paging.limit(args.limit)
        var query = RecordQuery(kind: LiveEventRecord.recordKind)
        query.descending = true
        query.tags = args.states?.map(\.rawValue)
        query.ids = args.ids
        if let creator = args.createdBy { query.via = (LiveEventByCreatorRecord.recordKind, creator, nil) }
        query.after = try args.cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(LiveEventRecord.self, query, limit: limit)
        var items: [LiveEventData] = []
        for record in page {
            var event = record.event
            event.participantCount = try await Self.inside(record, in: storage)
            items.append(event)
        }
        return Page(items: items, next: next)
    }

    /// Who may read a live event's stream: its hosts (entered or not), its creator, and
    /// whoever is inside.
    package func authorizeRead(_ userId: String, eventId: String) async throws {
        let event = try await Self.load(storage, eventId).event
        if event.userIdsForHost.contains(userId) || event.createdBy == userId { return }
        if try await storage.presenceEntry(stream: event.stream, clientId: Self.participantKey(userId)) != nil { return }
        throw GreenroomError(.actionNotAllowedForParticipant, "enter live event \(eventId) before following it")
    }

    // MARK: Creating and changing

    package func create(_ args: LiveEventCreateArgs, by creator: String) async throws -> LiveEventData {
        let hosts = Array(Set(args.userIdsForHost ?? [creator])).sorted()
        guard !hosts.isEmpty, hosts.count <= 100, hosts.allSatisfy(Limits.isValidId) else {
            throw GreenroomError(.invalidParameterValue, "userIdsForHost must hold 1–100 valid user ids")
        }
        let keys = args.reactionKeys ?? []
        guard keys.count <= 20, Set(keys).count == keys.count, keys.allSatisfy({ (1...64).contains($0.count) }) else {
            throw GreenroomError(.invalidParameterValue, "reactionKeys must be at most 20 distinct keys of 1–64 characters")
        }
        let items = args.customItems ?? [:]
        try Self.checkItems(items)
        let now = Date.wireNow
        var event = LiveEventData(
            liveEventId: "le" + RandomHex.string(bytes: 8), type: args.type ?? .video, title: args.title, coverURL: args.coverURL,
            state: .created, userIdsForHost: hosts, createdBy: creator, createdAt: now, reactionKeys: keys,
            reactionCounts: Dictionary(uniqueKeysWithValues: keys.map { ($0, 0) }), customItems: items)
        try Self.checkInfo(&event)
        let created = event
        return try await events.transact { transaction in
            try await transaction.save(LiveEventRecord(event: created, announcedReactionCounts: created.reactionCounts))
            try await transaction.save(LiveEventByCreatorRecord(createdBy: creator, liveEventId: created.liveEventId))
            return created
        }
    }

    /// Changes a live event in a transaction, as a host (a user in `userIdsForHost`), or as
    /// the app's backend (`userId` `$backend`): `body` checks the state, changes the event
    /// and names the event to announce.
    package func change(_ id: String, by userId: String, _ body: @escaping @Sendable (inout LiveEventData) throws -> String?) async throws -> LiveEventData {
        let changed = try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            guard userId == Identity.backendUserId || record.event.userIdsForHost.contains(userId) else {
                throw GreenroomError(.actionNotAllowedForParticipant, "only the event's hosts may do this")
            }
            guard let type = try body(&record.event) else { return record.event }
            if record.event.state == .ended {
                // Everyone is out, in the same transaction as the end: counts are final.
                for entry in try await transaction.presence(stream: record.event.stream) {
                    try await transaction.removePresence(stream: record.event.stream, clientId: entry.clientId)
                }
                record.inside = 0
            }
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(type, record.event, LiveEventEvent(type: type, liveEvent: record.event, actorId: userId))])
            return record.event
        }
        if changed.state == .ended { markPending(changed.liveEventId) }
        return try await current(changed.liveEventId)
    }

    package func updateInfo(_ args: LiveEventInfoArgs, by userId: String) async throws -> LiveEventData {
        try await change(args.liveEventId, by: userId) { event in
            guard event.state != .ended else { throw Self.wrongState(event, "update an ended event") }
            if let title = args.title { event.title = title }
            if let url = args.coverURL { event.coverURL = url }
            try Self.checkInfo(&event)
            return LiveEventEventType.infoUpdated
        }
    }

    package func setReady(_ id: String, by userId: String) async throws -> LiveEventData {
        try await change(id, by: userId) { event in
            guard event.state == .created else { throw Self.wrongState(event, "set ready") }
            event.state = .ready
            event.setReadyAt = Date.wireNow
            return LiveEventEventType.ready
        }
    }

    package func start(_ id: String, by userId: String) async throws -> LiveEventData {
        let started = try await change(id, by: userId) { event in
            guard event.state == .ready else { throw Self.wrongState(event, "start") }
            event.state = .ongoing
            event.startedAt = Date.wireNow
            return LiveEventEventType.started
        }
        return await startLivestream(started)
    }

    /// Ends the event (from `ready` or `ongoing`) and forces everyone out.
    package func end(_ id: String, by userId: String) async throws -> LiveEventData {
        let ended = try await change(id, by: userId) { event in
            guard event.state == .ready || event.state == .ongoing else { throw Self.wrongState(event, "end") }
            event.state = .ended
            event.endedAt = Date.wireNow
            event.endedBy = userId
            event.hosts = []
            return LiveEventEventType.ended
        }
        await livestreams.stop(ended.stream, reason: "ended")
        await media.roomEnded(ended.stream)
        return ended
    }

    // MARK: Helpers

    package static func event(_ type: String, _ live: LiveEventData, _ event: LiveEventEvent) throws -> EventAppend {
        var event = event
        event.type = type
        return EventAppend(stream: live.stream, type: type, data: try RawJSON(encoding: event))
    }

    package static func wrongState(_ event: LiveEventData, _ action: String) -> GreenroomError {
        GreenroomError(.actionNotAllowedInCurrentState, "cannot \(action) while the live event is \(event.state.rawValue)")
    }

    package static func checkInfo(_ event: inout LiveEventData) throws {
        if let title = event.title, title.count > Limits.maxNicknameLength {
            throw GreenroomError(.invalidParameterValue, "title must be at most \(Limits.maxNicknameLength) characters")
        }
        if let url = event.coverURL, url.count > 2048 || URL(string: url) == nil {
            throw GreenroomError(.invalidParameterValue, "coverURL is not a valid URL")
        }
    }

    package func markPending(_ id: String) {
        pending.insert(id)
    }
}
