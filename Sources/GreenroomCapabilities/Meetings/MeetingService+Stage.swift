import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A participant on a meeting's stage: announced to everyone. One who joined (or was since)
/// `SEND_AND_RECV`, or a moderator.
package struct MeetingStageMember: Codable, Sendable, Hashable {
    package var userId: String
    /// Whether it hears of the participants off stage: `SEND_AND_RECV` now, or a moderator.
    package var watches: Bool
}

/// A user's participants in a meeting, kept with the roster: who may read the meeting (its
/// stream, its persisted messages, its livestream's files) is one read, whatever its size.
package struct MeetingMemberRecord: StoredRecord {
    package static let recordKind = "meeting-member"
    package var meetingId: String
    package var userId: String
    package var participantIds: [String]

    package var recordScope: String { meetingId }
    package var recordId: String { userId }
}

/// A big meeting (seed 001's livestream: a few hosts, thousands of `RECV_ONLY` or
/// `SIGNALLING_ONLY` viewers) costs no work per join that grows with the audience: the
/// meeting's record keeps its participant count and its stage, so a join checks the limit,
/// lists the participants and chooses whom to tell from the record; a viewer's join, change
/// and leave are announced to the participants who watch (the hosts, the moderators) and to
/// its own user, and everyone hears the count, at most once a second.
extension MeetingService {
    /// Whether `participant` hears of everyone: sends media now, or moderates.
    package static func watches(_ participant: MeetingParticipant) -> Bool {
        participant.mode == .SEND_AND_RECV || participant.isModerator
    }

    /// Brings the record's count and stage, and the user's member record, up to date after a
    /// change to `participant` in the roster made in `transaction`: `delta` +1 it is new, -1
    /// it is out, 0 it changed. A record stored before they were kept is counted from the
    /// roster, which already holds the change, and its member records are written again.
    package static func keep(_ record: inout MeetingRecord, delta: Int, _ participant: MeetingParticipant,
                     in transaction: any StorageTransaction) async throws {
        let meetingId = record.meeting.meetingId
        let id = participant.participantId
        guard let count = record.count, record.stage != nil else {
            let all = try await participants(meetingId, in: transaction).map(\.participant)
            record.count = all.count
            record.stage = Dictionary(all.filter(watches).map { ($0.participantId, MeetingStageMember(userId: $0.userId, watches: true)) },
                                      uniquingKeysWith: { first, _ in first })
            _ = try await transaction.deleteRecords(kind: MeetingMemberRecord.recordKind, scope: meetingId)
            for (userId, participants) in Dictionary(grouping: all, by: \.userId) {
                try await transaction.save(MeetingMemberRecord(meetingId: meetingId, userId: userId, participantIds: participants.map(\.participantId).sorted()))
            }
            return
        }
        record.count = max(0, count + delta)
        if delta != 0 {
            var member = try await transaction.load(MeetingMemberRecord.self, scope: meetingId, id: participant.userId)
                ?? MeetingMemberRecord(meetingId: meetingId, userId: participant.userId, participantIds: [])
            var ids = Set(member.participantIds)
            if delta > 0 { ids.insert(id) } else { ids.remove(id) }
            member.participantIds = ids.sorted()
            if ids.isEmpty {
                try await transaction.remove(MeetingMemberRecord.self, scope: meetingId, id: participant.userId)
            } else {
                try await transaction.save(member)
            }
        }
        guard delta >= 0 else {
            record.stage?[id] = nil
            return
        }
        let watches = watches(participant)
        if watches || record.stage?[id] != nil {
            record.stage?[id] = MeetingStageMember(userId: participant.userId, watches: watches)
        }
    }

    /// Who hears of a participant's changes: everyone (`nil`) when it is on stage; otherwise
    /// the users who watch and its own.
    package static func audience(of participantId: String, userId: String, in record: MeetingRecord) -> Set<String>? {
        guard let stage = record.stage, stage[participantId] == nil else { return nil }
        return Set(stage.values.filter(\.watches).map(\.userId)).union([userId])
    }

    /// A meeting event to `audience` only (everyone when `nil`); the audience is routing,
    /// never in the event's data.
    package static func event(_ meetingId: String, _ event: MeetingEvent, audience: Set<String>?) throws -> EventAppend {
        var append = try Self.event(meetingId, event)
        if let audience { append.audience = audience }
        return append
    }

    /// The participants a reader is given: everyone for the backend (`nil`), a moderator and
    /// a participant who watches; otherwise those on stage and `own` (the reader's).
    package func listed(_ meetingId: String, record: MeetingRecord, for identity: Identity?, own: [MeetingParticipant]) async throws -> [MeetingParticipant] {
        guard let identity, let stage = record.stage, !identity.grants.contains(MeetingGrant.allowMod),
              !stage.values.contains(where: { $0.watches && $0.userId == identity.userId }) else {
            return try await participants(meetingId).map(\.participant)
        }
        let stream = Self.stream(meetingId)
        var listed: [MeetingParticipant] = []
        for participantId in stage.keys {
            guard let entry = try await storage.presenceEntry(stream: stream, clientId: Self.key(participantId)),
                  let participant = try? entry.data["participant"]?.decode(as: MeetingParticipant.self) else { continue }
            listed.append(participant)
        }
        for participant in own where stage[participant.participantId] == nil { listed.append(participant) }
        return listed.sorted { ($0.joinedAt, $0.participantId) < ($1.joinedAt, $1.participantId) }
    }

    // MARK: The count

    package func markPending(_ meetingId: String) {
        pending.insert(meetingId)
    }

    /// Announces the counts of the meetings that changed since the last flush: one
    /// `meeting.participantCountChanged` per meeting at most, whatever happened in between.
    package func flush() async throws {
        for id in pending.take() {
            try await events.transact { transaction in
                guard var record = try await transaction.load(MeetingRecord.self, id: id), let count = record.count,
                      count != record.announcedCount else { return }
                record.announcedCount = count
                try await transaction.save(record)
                _ = try await transaction.append([try Self.event(id, MeetingEvent(type: MeetingEventType.participantCountChanged, count: count))])
            }
        }
    }
}
