import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A meeting as stored: its state and pins (participants live in the roster), with the
/// participant count and stage its roster's changes keep (see `MeetingService+Stage`).
package struct MeetingRecord: StoredRecord {
    package static let recordKind = "meeting"
    package var meeting: MeetingData
    /// How many participants are in the roster; `nil` in records stored before it was kept
    /// (counted from the roster at the next change).
    package var count: Int?
    /// The count last announced with `meeting.participantCountChanged`.
    package var announcedCount: Int?
    /// The participants on stage, by participant id; `nil` as `count`.
    package var stage: [String: MeetingStageMember]?

    package var recordId: String { meeting.meetingId }
    package var recordSort: Int64 { Paging.millis(meeting.createdAt) }
}

/// An entry request of a participant whose token has `ask_join`: pending, allowed or denied.
package struct MeetingAdmissionRecord: StoredRecord {
    package static let recordKind = "meeting-admission"
    package var meetingId: String
    package var participantId: String
    package var userId: String
    package var name: String
    package var allowed: Bool?

    package var recordScope: String { meetingId }
    package var recordId: String { participantId }
}

/// A persisted pub/sub message, in its meeting's and topic's scope, in publication order.
package struct PersistedPubSubRecord: StoredRecord {
    package static let recordKind = "pubsub"
    package var meetingId: String
    package var message: PubSubMessage
    /// The users it is for (`sendOnly`), or everyone when `nil`.
    package var audience: [String]?
    package var offset: Int64

    package var recordScope: String { Self.scope(meetingId, message.topic) }
    package var recordId: String { message.id }
    package var recordSort: Int64 { offset }

    package static func scope(_ meetingId: String, _ topic: String) -> String { "\(meetingId)|\(topic)" }
}
