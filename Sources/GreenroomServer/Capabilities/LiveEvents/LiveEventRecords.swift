import Foundation
import GreenroomProtocol

/// A live event as stored, sorted by creation, tagged with its state.
struct LiveEventRecord: StoredRecord {
    static let recordKind = "live-event"
    var event: LiveEventData
    /// The reaction counts last announced, to announce only what changed.
    var announcedReactionCounts: [String: Int] = [:]
    /// The counts last announced.
    var announcedCounts: ParticipantCountInfo?
    /// How many participants are inside: changed in the transaction of every entry and
    /// removal of one (so that entering reads no roster); `nil` in a record stored before it
    /// was kept, then counted from the roster at its next change.
    var inside: Int?

    var recordId: String { event.liveEventId }
    var recordSort: Int64 { Paging.millis(event.createdAt) }
    var recordTag: String { event.state.rawValue }
}

/// Indexes a creator's live events (for the `createdBy` filter).
struct LiveEventByCreatorRecord: StoredRecord {
    static let recordKind = "live-event-by"
    var createdBy: String
    var liveEventId: String

    var recordScope: String { createdBy }
    var recordId: String { liveEventId }
}

/// A user who entered a live event at least once (for the cumulative count).
struct LiveEventVisitorRecord: StoredRecord {
    static let recordKind = "live-event-visitor"
    var liveEventId: String
    var userId: String

    var recordScope: String { liveEventId }
    var recordId: String { userId }
}
