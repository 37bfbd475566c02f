import Foundation
import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

/// The rules of stage meetings: who may join (token grants, admission by a moderator),
/// participants and their modes and media state (in the roster, across nodes), pins, and
/// pub/sub with persistence and per-recipient messages.
package struct MeetingService: Sendable {
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let roster: Roster
    /// How long a participant whose connection dropped is `reconnecting` before it has left.
    package let grace: TimeInterval
    /// The most participants a meeting may have.
    package let participantLimit: Int
    /// How many persisted pub/sub messages a topic keeps: the newest.
    package var persistedPerTopic = 1_000
    /// The meeting's media room: told when a participant loses the right to publish or
    /// receive, and when the meeting ends.
    package let media: MediaPlane
    /// The meetings' HLS livestreams; a meeting's stops when it ends.
    package let livestreams: LivestreamEngine
    /// The meetings whose count changed since the last flush.
    package let pending = PendingSet()

    package static let role = "participant"
    package static func key(_ participantId: String) -> String { "p:\(participantId)" }
    package static func stream(_ meetingId: String) -> String { StreamKind.meeting.stream(meetingId) }

    // MARK: Reading

    package static func load(_ reader: any RecordReading, _ id: String) async throws -> MeetingRecord {
        guard let record = try await reader.load(MeetingRecord.self, id: id) else {
            throw GreenroomError(.meetingNotFound, "no meeting with id \(id)")
        }
        return record
    }

    /// The participants in the roster, by join time.
    package func participants(_ meetingId: String) async throws -> [(entry: PresenceEntry, participant: MeetingParticipant)] {
        try await Self.participants(meetingId, in: storage)
    }

    /// The participants as `reader` (the storage, or a transaction) sees them.
    package static func participants(_ meetingId: String, in reader: any PresenceReading) async throws -> [(entry: PresenceEntry, participant: MeetingParticipant)] {
        try await reader.presence(stream: stream(meetingId)).compactMap { entry in
            guard entry.data["role"]?.stringValue == role,
                  let participant = try? entry.data["participant"]?.decode(as: MeetingParticipant.self) else { return nil }
            return (entry, participant)
        }
    }

    /// The meeting id of a meeting's stream.
    package static func meetingId(of stream: String) throws -> String {
        guard let id = StreamKind.meeting.id(in: stream) else {
            throw GreenroomServerError.storage("\(stream) is not a meeting's stream")
        }
        return id
    }

    /// The meeting with its participants as they are now: all of them for the backend
    /// (`identity` `nil`) and for a participant who watches, otherwise those on stage and
    /// `own` (see ``listed(_:record:for:own:)``).
    package func current(_ meetingId: String, for identity: Identity? = nil, own: [MeetingParticipant] = []) async throws -> MeetingData {
        let record = try await Self.load(storage, meetingId)
        var meeting = record.meeting
        meeting.participants = try await listed(meetingId, record: record, for: identity, own: own)
        meeting.participantCount = record.count ?? meeting.participants.count
        meeting.livestream = try await storage.load(LivestreamRecord.self, id: Self.stream(meetingId))?.info
        meeting.recording = try await storage.load(RecordingRecord.self, id: Self.stream(meetingId))?.info
        return meeting
    }

    /// The caller's participant in a meeting (the one its connection holds), as `reader`
    /// sees it.
    package func mine(_ meetingId: String, _ caller: Caller, in reader: (any PresenceReading)? = nil) async throws -> (entry: PresenceEntry, participant: MeetingParticipant) {
        let stream = Self.stream(meetingId)
        let reader = reader ?? storage
        for (entryStream, key) in caller.session.rosterEntries where entryStream == stream {
            if let entry = try await roster.held(by: caller, stream: stream, key: key, in: reader),
               let participant = try? entry.data["participant"]?.decode(as: MeetingParticipant.self) {
                return (entry, participant)
            }
        }
        throw GreenroomError(.meetingNotJoined, "join meeting \(meetingId) first")
    }

    /// Changes the caller's participant in one transaction: `body` gets its entry and
    /// participant as stored, changes them through the transaction and names the events
    /// to announce. Returns the entry as it was and the participant as `body` left it.
    @discardableResult
    package func change(
        _ meetingId: String, _ caller: Caller,
        _ body: @escaping @Sendable (any StorageTransaction, PresenceEntry, inout MeetingParticipant) async throws -> [MeetingEvent]
    ) async throws -> (entry: PresenceEntry, participant: MeetingParticipant) {
        try await events.transact { transaction in
            var (entry, participant) = try await mine(meetingId, caller, in: transaction)
            let announced = try await body(transaction, entry, &participant)
            if !announced.isEmpty { _ = try await transaction.append(try announced.map { try Self.event(meetingId, $0) }) }
            entry.data = entry.data.merging(["participant": try RawJSON(encoding: participant)])
            return (entry, participant)
        }
    }

    /// Who may read a meeting's stream: its participants' users and moderators, found by the
    /// user's member record (the roster is read only for a meeting stored before those were
    /// kept).
    package func authorizeRead(_ identity: Identity, meetingId: String) async throws {
        let record = try await Self.load(storage, meetingId)
        if identity.grants.contains(MeetingGrant.allowMod) { return }
        if try await storage.load(MeetingMemberRecord.self, scope: meetingId, id: identity.userId) != nil { return }
        guard record.count == nil, try await participants(meetingId).contains(where: { $0.participant.userId == identity.userId }) else {
            throw GreenroomError(.meetingNotJoined, "join meeting \(meetingId) before following it")
        }
    }

    /// The meeting as the caller may see it (see ``current(_:for:own:)``).
    package func get(_ meetingId: String, caller: Caller) async throws -> MeetingData {
        if let own = try? await mine(meetingId, caller).participant {
            return try await current(meetingId, for: caller.identity, own: [own])
        }
        try await authorizeRead(caller.identity, meetingId: meetingId)
        return try await current(meetingId, for: caller.identity)
    }

    // MARK: Creating and ending

    /// Creates a meeting unless it exists; returns it.
    @discardableResult
    package func create(_ meetingId: String, by creator: String) async throws -> MeetingData {
        guard Limits.isValidId(meetingId) else {
            throw GreenroomError(.invalidParameterValue, "the meeting id must be 1–128 characters of letters, digits and _-.@")
        }
        return try await events.transact { transaction in
            if let existing = try await transaction.load(MeetingRecord.self, id: meetingId) { return existing.meeting }
            let meeting = MeetingData(meetingId: meetingId, state: .active, createdBy: creator, createdAt: Date.wireNow)
            _ = try await transaction.insert(try MeetingRecord(meeting: meeting).asRecord())
            return try await Self.load(transaction, meetingId).meeting
        }
    }

    /// Ends a meeting (moderators only): everyone leaves, nobody may join again.
    package func end(_ meetingId: String, identity: Identity) async throws {
        try Self.requireModerator(identity, to: "end the meeting")
        try await events.transact { transaction in
            try await transaction.lock(stream: Self.stream(meetingId))
            var record = try await Self.load(transaction, meetingId)
            guard record.meeting.state == .active else { return }
            record.meeting.state = .ended
            record.meeting.endedAt = Date.wireNow
            record.count = 0
            record.stage = [:]
            try await transaction.save(record)
            _ = try await transaction.deleteRecords(kind: MeetingMemberRecord.recordKind, scope: meetingId)
            for (entry, _) in try await Self.participants(meetingId, in: transaction) {
                try await transaction.removePresence(stream: entry.stream, clientId: entry.clientId)
            }
            _ = try await transaction.append([try Self.event(meetingId, MeetingEvent(type: MeetingEventType.ended, reason: identity.userId))])
        }
        markPending(meetingId)
        await livestreams.stop(Self.stream(meetingId), reason: "ended")
        await media.roomEnded(Self.stream(meetingId))
    }

    /// Throws `moderatorRequired` unless `identity` has `allow_mod`; `action` completes
    /// "only a moderator (allow_mod) may …".
    package static func requireModerator(_ identity: Identity, to action: String) throws {
        guard identity.grants.contains(MeetingGrant.allowMod) else {
            throw GreenroomError(.moderatorRequired, "only a moderator (allow_mod) may \(action)")
        }
    }

    package static func event(_ meetingId: String, _ event: MeetingEvent) throws -> EventAppend {
        var append = EventAppend(stream: stream(meetingId), type: event.type, data: try RawJSON(encoding: event))
        append.audience = event.audience.map(Set.init)
        return append
    }

    /// Stores a participant's new state in its roster entry.
    package static func store(_ participant: MeetingParticipant, in entry: PresenceEntry, _ transaction: any StorageTransaction) async throws {
        var entry = entry
        entry.data = entry.data.merging(["participant": try RawJSON(encoding: participant)])
        try await transaction.putPresence(entry)
    }
}
