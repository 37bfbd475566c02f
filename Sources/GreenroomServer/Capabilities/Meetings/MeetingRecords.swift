import Foundation
import GreenroomProtocol

/// A meeting as stored: its state and pins (participants live in the roster), with the
/// participant count and stage its roster's changes keep (see `MeetingService+Stage`).
struct MeetingRecord: StoredRecord {
    static let recordKind = "meeting"
    var meeting: MeetingData
    /// How many participants are in the roster; `nil` in records stored before it was kept
    /// (counted from the roster at the next change).
    var count: Int?
    /// The count last announced with `meeting.participantCountChanged`.
    var announcedCount: Int?
    /// The participants on stage, by participant id; `nil` as `count`.
    var stage: [String: MeetingStageMember]?

    var recordId: String { meeting.meetingId }
    var recordSort: Int64 { Paging.millis(meeting.createdAt) }
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
