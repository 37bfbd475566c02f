import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A live event as stored, sorted by creation, tagged with its state.
package struct LiveEventRecord: StoredRecord {
    package static let recordKind = "live-event"
    package var event: LiveEventData
    /// The reaction counts last announced, to announce only what changed.
    package var announcedReactionCounts: [String: Int] = [:]
    /// The counts last announced.
    package var announcedCounts: ParticipantCountInfo?
    /// How many participants are inside: changed in the transaction of every entry and
    /// removal of one (so that entering reads no roster); `nil` in a record stored before it
    /// was kept, then counted from the roster at its next change.
    package var inside: Int?

    package var recordId: String { event.liveEventId }
    package var recordSort: Int64 { Paging.millis(event.createdAt) }
    package var recordTag: String { event.state.rawValue }
}

/// Indexes a creator's live events (for the `createdBy` filter).
package struct LiveEventByCreatorRecord: StoredRecord {
    package static let recordKind = "live-event-by"
    package var createdBy: String
    package var liveEventId: String

    package var recordScope: String { createdBy }
    package var recordId: String { liveEventId }
}

/// A user who entered a live event at least once (for the cumulative count).
package struct LiveEventVisitorRecord: StoredRecord {
    package static let recordKind = "live-event-visitor"
    package var liveEventId: String
    package var userId: String

    package var recordScope: String { liveEventId }
    package var recordId: String { userId }
}
