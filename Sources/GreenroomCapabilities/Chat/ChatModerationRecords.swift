import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A user banned from a channel, in the channel's scope. Removed when lifted, when found
/// expired by a change, with the channel and with the user's deletion.
package struct ChannelBanRecord: StoredRecord {
    package static let recordKind = "channel-ban"
    package var ban: ChannelBan

    package var recordScope: String { ban.channelId.rawValue }
    package var recordId: String { ban.userId }
}

/// The same ban in the user's scope, so that the user's deletion finds its bans.
package struct UserChannelBanRecord: StoredRecord {
    package static let recordKind = "channel-ban-of"
    package var userId: String
    package var channelId: ChannelId

    package var recordScope: String { userId }
    package var recordId: String { channelId.rawValue }
}

/// A member muted, in the channel's scope, so that the operators can list the muted; the
/// member record holds the mute itself. Removed with the mute, the member and the channel.
package struct MuteRecord: StoredRecord {
    package static let recordKind = "mute"
    package var channelId: ChannelId
    package var userId: String
    package var mutedUntil: Date

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { userId }
}

/// A user one user blocked, in the blocker's scope.
package struct BlockRecord: StoredRecord {
    package static let recordKind = "block"
    package var blockerId: String
    package var blocked: BlockedUser

    package var recordScope: String { blockerId }
    package var recordId: String { blocked.userId }
}

/// The same block in the blocked user's scope, so that its deletion finds who blocked it.
package struct BlockedByRecord: StoredRecord {
    package static let recordKind = "blocked-by"
    package var userId: String
    package var blockerId: String

    package var recordScope: String { userId }
    package var recordId: String { blockerId }
}

/// The app's blocklist, one record.
package struct BlocklistRecord: StoredRecord {
    package static let recordKind = "blocklist"
    package static let id = "app"
    package var blocklist: Blocklist

    package var recordId: String { Self.id }
}

/// A report in the review queue, tagged with its state and sorted by when it was made.
package struct ReportRecord: StoredRecord {
    package static let recordKind = "report"
    package var report: Report

    package var recordId: String { report.id }
    package var recordSort: Int64 { Paging.millis(report.createdAt) }
    package var recordTag: String { report.state.rawValue }
}

/// A report in its reporter's scope, tagged with its state: the reporter's open reports
/// are counted and searched for a repeat over these, and its deletion finds its reports.
package struct ReportByReporterRecord: StoredRecord {
    package static let recordKind = "report-by"
    package var reporterId: String
    package var reportId: String
    /// What was reported (``ChatService/reportKey(_:)``).
    package var key: String
    package var state: ReportState

    package var recordScope: String { reporterId }
    package var recordId: String { reportId }
    package var recordTag: String { state.rawValue }
}

/// A report in the reported user's scope, so that the user's deletion finds it.
package struct ReportAboutRecord: StoredRecord {
    package static let recordKind = "report-about"
    package var userId: String
    package var reportId: String

    package var recordScope: String { userId }
    package var recordId: String { reportId }
}
