import Foundation

extension ChatOperation {
    /// ``ReportMessageArgs`` → ``Report``: members only; reports another member's message
    /// to the app's moderators (the `/console` review queue, and a `report.created`
    /// webhook). Reporting the same message again while its report is open returns that
    /// report; a user has at most ``Limits/maxOpenReportsPerUser`` reports open.
    public static let reportMessage = WireOperation<ReportMessageArgs, Report>("message.report")
    /// ``ReportUserArgs`` → ``Report``: reports a user, as `message.report` does a message.
    public static let reportUser = WireOperation<ReportUserArgs, Report>("user.report")
}

extension Limits {
    /// The most reports one user may have open (not yet resolved by a moderator).
    public static let maxOpenReportsPerUser = 100
}

/// What a report is about.
public enum ReportKind: String, Codable, Sendable, Hashable, CaseIterable {
    /// A message.
    case message
    /// A user.
    case user
}

/// Where a report is in the review queue.
public enum ReportState: String, Codable, Sendable, Hashable, CaseIterable {
    /// Waiting for a moderator.
    case open
    /// A moderator acted on it or dismissed it.
    case resolved
}

/// What a moderator did with a report.
public enum ReportAction: String, Codable, Sendable, Hashable, CaseIterable {
    /// Nothing to do.
    case dismiss
    /// The message was deleted (message reports).
    case deleteMessage
    /// The reported user was muted in the message's channel (message reports).
    case muteInChannel
    /// The reported user was banned from the message's channel (message reports).
    case banFromChannel
    /// The reported user was banned from the app.
    case banFromApp
}

/// A report of a message or a user, for the app's moderators.
public struct Report: Codable, Sendable, Hashable {
    /// The report's id.
    public var id: String
    /// What it is about.
    public var kind: ReportKind
    /// Who reported.
    public var reporterId: String
    /// The user reported: the message's sender for a message report.
    public var userId: String
    /// The message's channel, for a message report.
    public var channelId: ChannelId?
    /// The message, for a message report.
    public var messageId: String?
    /// Why, as the reporter said (at most ``Limits/maxReasonLength`` characters).
    public var reason: String?
    /// When.
    public var createdAt: Date
    /// Open or resolved.
    public var state: ReportState
    /// What the moderator did, once resolved.
    public var resolution: ReportAction?
    /// When it was resolved.
    public var resolvedAt: Date?
    /// The moderator's note.
    public var note: String?

    /// Makes a report.
    public init(id: String, kind: ReportKind, reporterId: String, userId: String, channelId: ChannelId? = nil, messageId: String? = nil,
                reason: String? = nil, createdAt: Date, state: ReportState = .open) {
        self.id = id
        self.kind = kind
        self.reporterId = reporterId
        self.userId = userId
        self.channelId = channelId
        self.messageId = messageId
        self.reason = reason
        self.createdAt = createdAt
        self.state = state
    }
}

/// The arguments of `message.report`.
public struct ReportMessageArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The message.
    public var messageId: String
    /// Why (at most ``Limits/maxReasonLength`` characters).
    public var reason: String?

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String, reason: String? = nil) {
        self.channelId = channelId
        self.messageId = messageId
        self.reason = reason
    }
}

/// The arguments of `user.report`.
public struct ReportUserArgs: Codable, Sendable, Hashable {
    /// The user.
    public var userId: String
    /// Why (at most ``Limits/maxReasonLength`` characters).
    public var reason: String?

    /// Makes the arguments.
    public init(userId: String, reason: String? = nil) {
        self.userId = userId
        self.reason = reason
    }
}

/// How a moderator resolves a report (`POST /v1/moderation/reports/{id}/resolve`).
public struct ReportResolveArgs: Codable, Sendable, Hashable {
    /// What to do.
    public var action: ReportAction
    /// For a mute or a ban: how long, 1–``Limits/maxMuteSeconds``; until lifted when `nil`.
    public var seconds: Int?
    /// The moderator's note (at most ``Limits/maxReasonLength`` characters), also the
    /// ban's reason.
    public var note: String?

    /// Makes the arguments.
    public init(action: ReportAction, seconds: Int? = nil, note: String? = nil) {
        self.action = action
        self.seconds = seconds
        self.note = note
    }
}

/// A report with what a moderator needs to judge it: the message as it is now (emptied
/// when deleted) and the channel's messages around it.
public struct ReportDetail: Codable, Sendable, Hashable {
    /// The report.
    public var report: Report
    /// The message reported, as it is now; `nil` when it or its channel is gone.
    public var message: ChatMessage?
    /// Up to five messages of the channel before it and five after, oldest first.
    public var context: [ChatMessage]

    /// Makes the detail.
    public init(report: Report, message: ChatMessage? = nil, context: [ChatMessage] = []) {
        self.report = report
        self.message = message
        self.context = context
    }
}
