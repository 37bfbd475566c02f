import Foundation
import GreenroomProtocol

/// A meeting as stored: its state and pins (participants live in the roster).
struct MeetingRecord: StoredRecord {
    static let recordKind = "meeting"
    var meeting: MeetingData

    var recordId: String { meeting.meetingId }
    var recordSort: Int64 { ChannelRecord.millis(meeting.createdAt) }
}

/// An entry request of a participant whose token has `ask_join`: pending, allowed or denied.
struct MeetingAdmissionRecord: StoredRecord {
    static let recordKind = "meeting-admission"
    var meetingId: String
    var participantId: String
    var userId: String
    var name: String
    var allowed: Bool?

    var recordScope: String { meetingId }
    var recordId: String { participantId }
}

/// A persisted pub/sub message, in its meeting's and topic's scope, in publication order.
struct PersistedPubSubRecord: StoredRecord {
    static let recordKind = "pubsub"
    var meetingId: String
    var message: PubSubMessage
    /// The users it is for (`sendOnly`), or everyone when `nil`.
    var audience: [String]?
    var offset: Int64

    var recordScope: String { Self.scope(meetingId, message.topic) }
    var recordId: String { message.id }
    var recordSort: Int64 { offset }

    static func scope(_ meetingId: String, _ topic: String) -> String { "\(meetingId)|\(topic)" }
}

/// The rules of stage meetings: who may join (token grants, admission by a moderator),
/// participants and their modes and media state (in the roster, across nodes), pins, and
/// pub/sub with persistence and per-recipient messages.
struct MeetingService: Sendable {
    let storage: any GreenroomStorage
    let events: EventLog
    let roster: Roster
    let hub: EventHub
    /// How long a participant whose connection dropped is `reconnecting` before it has left.
    let grace: TimeInterval
    /// The most participants a meeting may have.
    let participantLimit: Int

    static let role = "participant"
    static func key(_ participantId: String) -> String { "p:\(participantId)" }
    static func stream(_ meetingId: String) -> String { "meeting:\(meetingId)" }

    // MARK: Reading

    static func load(_ reader: any RecordReading, _ id: String) async throws -> MeetingRecord {
        guard let record = try await reader.load(MeetingRecord.self, id: id) else {
            throw GreenroomError(.meetingNotFound, "no meeting with id \(id)")
        }
        return record
    }

    /// The participants in the roster, by join time.
    func participants(_ meetingId: String) async throws -> [(entry: PresenceEntry, participant: MeetingParticipant)] {
        try await roster.entries(Self.stream(meetingId), role: Self.role).compactMap { entry in
            guard let participant = try? entry.data["participant"]?.decode(as: MeetingParticipant.self) else { return nil }
            return (entry, participant)
        }
    }

    /// The meeting with its participants as they are now.
    func current(_ meetingId: String) async throws -> MeetingData {
        var meeting = try await Self.load(storage, meetingId).meeting
        meeting.participants = try await participants(meetingId).map(\.participant)
        return meeting
    }

    /// The caller's participant in a meeting (the one its connection holds).
    func mine(_ meetingId: String, _ connection: ClientConnection) async throws -> (entry: PresenceEntry, participant: MeetingParticipant) {
        let stream = Self.stream(meetingId)
        for (entryStream, key) in connection.rosterEntries where entryStream == stream {
            if let entry = try await storage.presenceEntry(stream: stream, clientId: key), roster.isHeld(entry, by: connection),
               let participant = try? entry.data["participant"]?.decode(as: MeetingParticipant.self) {
                return (entry, participant)
            }
        }
        throw GreenroomError(.meetingNotJoined, "join meeting \(meetingId) first")
    }

    /// Who may read a meeting's stream: its participants' users and moderators.
    func authorizeRead(_ identity: Identity, meetingId: String) async throws {
        _ = try await Self.load(storage, meetingId)
        if identity.grants.contains(MeetingGrant.allowMod) { return }
        guard try await participants(meetingId).contains(where: { $0.participant.userId == identity.userId }) else {
            throw GreenroomError(.meetingNotJoined, "join meeting \(meetingId) before following it")
        }
    }

    func get(_ meetingId: String, identity: Identity) async throws -> MeetingData {
        try await authorizeRead(identity, meetingId: meetingId)
        return try await current(meetingId)
    }

    // MARK: Creating and ending

    /// Creates a meeting unless it exists; returns it.
    @discardableResult
    func create(_ meetingId: String, by creator: String) async throws -> MeetingData {
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
    func end(_ meetingId: String, identity: Identity) async throws {
        guard identity.grants.contains(MeetingGrant.allowMod) else {
            throw GreenroomError(.moderatorRequired, "only a moderator (allow_mod) may end the meeting")
        }
        let ended = try await events.transact { transaction -> Bool in
            var record = try await Self.load(transaction, meetingId)
            guard record.meeting.state == .active else { return false }
            record.meeting.state = .ended
            record.meeting.endedAt = Date.wireNow
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(meetingId, MeetingEvent(type: MeetingEventType.ended, reason: identity.userId))])
            return true
        }
        guard ended else { return }
        for (entry, _) in try await participants(meetingId) {
            _ = try await storage.removePresence(stream: entry.stream, clientId: entry.clientId)
        }
    }

    static func event(_ meetingId: String, _ event: MeetingEvent) throws -> EventAppend {
        EventAppend(stream: stream(meetingId), type: event.type, data: try RawJSON(encoding: event))
    }

    /// Appends one event to a meeting's stream.
    func announce(_ meetingId: String, _ event: MeetingEvent) async throws {
        _ = try await events.append(try Self.event(meetingId, event))
    }

    /// Stores a participant's new state in its roster entry.
    func store(_ participant: MeetingParticipant, in entry: PresenceEntry) async throws {
        var entry = entry
        var data = entry.data.dictionaryValue ?? [:]
        data["participant"] = try RawJSON(encoding: participant)
        entry.data = .dictionary(data)
        _ = try await storage.putPresence(entry)
    }
}
