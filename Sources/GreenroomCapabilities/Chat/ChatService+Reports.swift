import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The review queue's events, on the `moderation` stream, which no client may follow: the
/// app's backend hears them through webhooks. They name the report and what it is about,
/// not the reporter or the reason (the backend reads those over REST).
package enum ReportEventType {
    /// The stream.
    package static let stream = "moderation"
    /// A report was made.
    package static let created = "report.created"
    /// A moderator resolved a report.
    package static let resolved = "report.resolved"
}

extension ChatService {
    /// Reports another member's message. Members only.
    package func reportMessage(_ args: ReportMessageArgs, by reporter: String) async throws -> Report {
        try ModerationChecks.reason(args.reason)
        let id = args.channelId
        return try await events.transact { transaction in
            _ = try await Self.channel(transaction, id)
            try await Self.requireJoined(transaction, id, reporter)
            guard let message = try await transaction.load(MessageRecord.self, scope: id.rawValue, id: args.messageId)?.message,
                  !message.isDeleted else {
                throw GreenroomError(.messageNotFound, "no message \(args.messageId) in channel \(id)")
            }
            guard message.senderId != reporter else { throw GreenroomError(.invalidParameterValue, "a user cannot report its own message") }
            let report = Report(id: "", kind: .message, reporterId: reporter, userId: message.senderId, channelId: id,
                                messageId: message.id, reason: args.reason, createdAt: Date.wireNow)
            return try await Self.file(report, in: transaction)
        }
    }

    /// Reports a user.
    package func reportUser(_ args: ReportUserArgs, by reporter: String) async throws -> Report {
        try ModerationChecks.reason(args.reason)
        guard args.userId != reporter else { throw GreenroomError(.invalidParameterValue, "a user cannot report itself") }
        try await requireUsers([args.userId])
        return try await events.transact { transaction in
            let report = Report(id: "", kind: .user, reporterId: reporter, userId: args.userId, reason: args.reason, createdAt: Date.wireNow)
            return try await Self.file(report, in: transaction)
        }
    }

    /// What a report is about, so that reporting it again finds the open report.
    static func reportKey(_ report: Report) -> String {
        [report.kind.rawValue, report.userId, report.channelId?.rawValue ?? "", report.messageId ?? ""].joined(separator: "|")
    }

    /// Stores a new report (or returns the reporter's open report of the same thing) and
    /// announces `report.created`.
    private static func file(_ new: Report, in transaction: any StorageTransaction) async throws -> Report {
        let key = reportKey(new)
        var query = RecordQuery(kind: ReportByReporterRecord.recordKind, scope: new.reporterId, limit: Limits.maxOpenReportsPerUser)
        query.tags = [ReportState.open.rawValue]
        let open = try await transaction.list(ReportByReporterRecord.self, query)
        if let same = open.first(where: { $0.key == key }), let existing = try await transaction.load(ReportRecord.self, id: same.reportId) {
            return existing.report
        }
        guard open.count < Limits.maxOpenReportsPerUser else {
            throw GreenroomError(.rateLimited, "\(new.reporterId) has \(open.count) reports waiting for a moderator, the most one may")
        }
        var report = new
        report.id = "r" + RandomHex.string(bytes: 10)
        try await transaction.save(ReportRecord(report: report))
        try await transaction.save(ReportByReporterRecord(reporterId: report.reporterId, reportId: report.id, key: key, state: .open))
        try await transaction.save(ReportAboutRecord(userId: report.userId, reportId: report.id))
        _ = try await transaction.append([try announcement(ReportEventType.created, report)])
        return report
    }

    private static func announcement(_ type: String, _ report: Report) throws -> EventAppend {
        var data: [String: RawJSON] = ["id": .string(report.id), "kind": .string(report.kind.rawValue), "userId": .string(report.userId),
                                       "state": .string(report.state.rawValue), "createdAt": .string(WireCoding.formatDate(report.createdAt))]
        if let channelId = report.channelId { data["channelId"] = .string(channelId.rawValue) }
        if let messageId = report.messageId { data["messageId"] = .string(messageId) }
        if let resolution = report.resolution { data["resolution"] = .string(resolution.rawValue) }
        return EventAppend(stream: ReportEventType.stream, type: type, data: .dictionary(data))
    }

    /// A page of the queue in one state, the newest first.
    package func reports(state: ReportState, limit: Int?, cursor: String?) async throws -> Page<Report> {
        let limit = try Paging.limit(limit)
        var query = RecordQuery(kind: ReportRecord.recordKind)
        query.tags = [state.rawValue]
        query.descending = true
        query.after = try cursor.map(RecordCursor.decode)
        let (page, next) = try await storage.page(ReportRecord.self, query, limit: limit)
        return Page(items: page.map(\.report), next: next)
    }

    /// A report with its message as it is now and five messages of the channel either side.
    package func reportDetail(_ id: String) async throws -> ReportDetail {
        guard let report = try await storage.load(ReportRecord.self, id: id)?.report else {
            throw GreenroomError(.notFound, "no report with id \(id)")
        }
        guard let channel = report.channelId, let messageId = report.messageId,
              let message = try await storage.load(MessageRecord.self, scope: channel.rawValue, id: messageId)?.message else {
            return ReportDetail(report: report)
        }
        var query = RecordQuery(kind: MessageRecord.recordKind, scope: channel.rawValue, limit: 5)
        query.tags = MessageRecord.channelTags
        query.sortBelow = message.sequence
        query.descending = true
        let before = try await storage.list(MessageRecord.self, query).map(\.message).reversed()
        query.sortBelow = nil
        query.sortAbove = message.sequence
        query.descending = false
        let after = try await storage.list(MessageRecord.self, query).map(\.message)
        return ReportDetail(report: report, message: message, context: Array(before) + after)
    }

    /// Resolves an open report: does what the moderator chose (as the app's backend), then
    /// marks the report resolved and announces `report.resolved`. - Throws:
    /// `invalidParameterValue` for a resolved report or an action that does not fit it.
    package func resolveReport(_ id: String, _ args: ReportResolveArgs) async throws -> Report {
        try ModerationChecks.reason(args.note, named: "note")
        guard var report = try await storage.load(ReportRecord.self, id: id)?.report else {
            throw GreenroomError(.notFound, "no report with id \(id)")
        }
        guard report.state == .open else { throw GreenroomError(.invalidParameterValue, "report \(id) is resolved already") }
        let inChannel = report.channelId.flatMap { channel in report.messageId.map { (channel, $0) } }
        switch args.action {
        case .dismiss:
            break
        case .deleteMessage, .muteInChannel, .banFromChannel:
            guard let (channel, messageId) = inChannel else {
                throw GreenroomError(.invalidParameterValue, "\(args.action.rawValue) needs a message report")
            }
            switch args.action {
            case .deleteMessage: _ = try await deleteMessage(MessageRef(channelId: channel, messageId: messageId), by: nil)
            case .muteInChannel: _ = try await mute(MuteArgs(channelId: channel, userId: report.userId, seconds: args.seconds), by: nil)
            default: _ = try await ban(BanArgs(channelId: channel, userId: report.userId, seconds: args.seconds, reason: args.note ?? report.reason), by: nil)
            }
        case .banFromApp:
            let (userId, reason) = (report.userId, args.note ?? report.reason)
            _ = try await events.transact { transaction in
                try await UserBans.ban(userId, UserBanArgs(seconds: args.seconds, reason: reason), in: transaction)
            }
        }
        report.state = .resolved
        report.resolution = args.action
        report.resolvedAt = Date.wireNow
        report.note = args.note
        let resolved = report
        try await events.transact { transaction in
            guard try await transaction.load(ReportRecord.self, id: id) != nil else { return }
            try await transaction.save(ReportRecord(report: resolved))
            try await transaction.save(ReportByReporterRecord(reporterId: resolved.reporterId, reportId: id,
                                                              key: Self.reportKey(resolved), state: .resolved))
            _ = try await transaction.append([try Self.announcement(ReportEventType.resolved, resolved)])
        }
        return resolved
    }

    /// A deleted user's reports, made by it or about it, go with it.
    static func forgetReports(of userId: String, in transaction: any StorageTransaction) async throws {
        let made = try await transaction.list(ReportByReporterRecord.self, RecordQuery(kind: ReportByReporterRecord.recordKind, scope: userId, limit: 1_000_000))
        let about = try await transaction.list(ReportAboutRecord.self, RecordQuery(kind: ReportAboutRecord.recordKind, scope: userId, limit: 1_000_000))
        for reportId in Set(made.map(\.reportId) + about.map(\.reportId)) {
            guard let report = try await transaction.load(ReportRecord.self, id: reportId)?.report else { continue }
            try await transaction.remove(ReportRecord.self, id: reportId)
            try await transaction.remove(ReportByReporterRecord.self, scope: report.reporterId, id: reportId)
            try await transaction.remove(ReportAboutRecord.self, scope: report.userId, id: reportId)
        }
    }
}
