import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// The app's alert text, overriding the default (`PUT /v1/push/template`).
package struct PushTemplateRecord: StoredRecord {
    package static let recordKind = "push-template"
    package static let onlyId = "default"
    package var template: PushTemplate

    /// The app's template.
    package init(template: PushTemplate) {
        self.template = template
    }

    package var recordId: String { Self.onlyId }
}

/// A member who turned pushes off for a channel, or down to the messages that mention it,
/// in the user's scope.
package struct PushMuteRecord: StoredRecord {
    package static let recordKind = "push-mute"
    package var userId: String
    package var channelId: String
    /// `true`: the messages that mention the member still push.
    package var mentionsOnly: Bool?

    package var recordScope: String { userId }
    package var recordId: String { channelId }
}

extension PushSender {
    /// The stream a user's live connections are listed on (one presence entry each, on any node).
    package static func onlineStream(_ userId: String) -> String { OnlineCapability.stream(userId) }

    /// Replaces a message's (or an invitation's) push with one job per device of each user who
    /// should get it: members of the channel but the sender, not connected on any node, who
    /// did not turn pushes off for the channel (a member who set it to mentions only gets the
    /// messages that mention it). Each push's badge is its user's unread messages.
    package func fanOut(_ job: OutboxJobRecord) async throws {
        let event = job.event
        let channelId = event.data["channelId"]?.stringValue ?? ""
        let actor = event.data["actorId"]?.stringValue ?? event.data["message"]?["senderId"]?.stringValue ?? ""
        let template = try await storage.load(PushTemplateRecord.self, id: PushTemplateRecord.onlyId)?.template ?? PushTemplate()
        let sender = try await storage.user(id: actor)
        var values: [String: String] = [
            "channel.id": channelId, "sender.id": actor, "sender.nickname": sender?.nickname ?? actor,
        ]
        var recipients: [String]
        var data = ["type": event.type, "channelId": channelId]
        let mentioned = Set(event.data["message"]?["mentionedUserIds"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        if event.type == ChatEventType.channelInvited {
            recipients = [StreamKind.user.id(in: event.stream) ?? ""].filter { !$0.isEmpty }
            values["channel.name"] = event.data["channel"]?["name"]?.stringValue ?? ""
            values["message.text"] = ""
        } else {
            let channel = try await storage.load(ChannelRecord.self, id: channelId)?.channel
            values["channel.name"] = channel?.name ?? ""
            values["message.text"] = event.data["message"]?["text"]?.stringValue ?? ""
            data["messageId"] = event.data["message"]?["id"]?.stringValue ?? ""
            var query = RecordQuery(kind: MemberRecord.recordKind, scope: channelId, limit: 100_000)
            query.tags = MemberRecord.joinedTags
            recipients = try await storage.list(MemberRecord.self, query).map(\.member.userId).filter { $0 != actor }
        }
        let (title, body) = template.render(values, invitation: event.type == ChatEventType.channelInvited)
        var jobs: [OutboxJobRecord] = []
        for userId in recipients {
            if event.type != ChatEventType.channelInvited,
               let mute = try await storage.load(PushMuteRecord.self, scope: userId, id: channelId),
               mute.mentionsOnly != true || !mentioned.contains(userId) { continue }
            guard try await storage.presenceCount(stream: Self.onlineStream(userId), clientIdPrefix: "") == 0 else { continue }
            let devices = try await storage.list(DeviceRecord.self, RecordQuery(kind: DeviceRecord.recordKind, scope: userId))
            guard !devices.isEmpty else { continue }
            let badge = try await ChatService.unreadCounts(of: userId, in: storage).totalUnreadMessages
            for device in devices {
                let message = PushMessage(userId: userId, title: title, body: body, threadId: channelId,
                                          collapseId: String((data["messageId"] ?? "invite-\(channelId)").prefix(64)), data: data,
                                          badge: badge)
                jobs.append(OutboxJobRecord(destinationId: Self.destinationId, event: event, ownLane: device.device.id,
                                            payload: try RawJSON(encoding: message), dueAt: Date()))
            }
        }
        let queued = jobs
        try await events.transact { transaction in
            // Another node fanned it out first (its hold ran out): nothing to do.
            guard try await transaction.remove(OutboxJobRecord.self, scope: job.destinationId, id: job.recordId) else { return }
            for job in queued { try await transaction.save(job) }
        }
        metrics.fannedOut(jobs.count)
        if !jobs.isEmpty { events.outbox.nudge() }
    }
}
