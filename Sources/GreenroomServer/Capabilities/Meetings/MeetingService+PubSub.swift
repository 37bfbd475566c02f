import Foundation
import GreenroomProtocol

extension MeetingService {
    /// Publishes a message on a topic: on the meeting's stream (in order, resumable), only
    /// to the `sendOnly` participants' users when given, and kept for later subscribers
    /// when `persist` is set.
    func publish(_ args: PubSubPublishArgs, caller: Caller) async throws -> PubSubMessage {
        let (_, sender) = try await mine(args.meetingId, caller)
        guard (1...Limits.maxTopicLength).contains(args.topic.count) else {
            throw GreenroomError(.invalidParameterValue, "topic must be 1–\(Limits.maxTopicLength) characters")
        }
        guard args.message.utf8.count <= Limits.maxPubSubMessageBytes else {
            throw GreenroomError(.payloadTooLarge, "message is \(args.message.utf8.count) bytes; the limit is \(Limits.maxPubSubMessageBytes)")
        }
        let payload = args.payload ?? [:]
        let payloadBytes = try RawJSON.dictionary(payload).jsonData().count
        guard payloadBytes <= Limits.maxPubSubPayloadBytes else {
            throw GreenroomError(.payloadTooLarge, "payload is \(payloadBytes) bytes; the limit is \(Limits.maxPubSubPayloadBytes)")
        }
        var audience: [String]?
        if let sendOnly = args.options?.sendOnly {
            // Each named participant's own entry, not the whole roster (a host inviting one
            // viewer of thousands).
            guard sendOnly.count <= participantLimit else {
                throw GreenroomError(.invalidParameterValue, "sendOnly names \(sendOnly.count) participants; a meeting has at most \(participantLimit)")
            }
            var users: [String] = []
            for id in sendOnly where Limits.isValidId(id) {
                if let entry = try await storage.presenceEntry(stream: Self.stream(args.meetingId), clientId: Self.key(id)),
                   entry.data["role"]?.stringValue == Self.role {
                    users.append(entry.userId)
                }
            }
            guard users.count == sendOnly.count else {
                throw GreenroomError(.meetingNotFound, "sendOnly names participants that are not in the meeting")
            }
            audience = Array(Set(users)).sorted()
        }
        let message = PubSubMessage(id: "ps" + Secrets.randomHex(bytes: 8), topic: args.topic, message: args.message,
                                    senderId: sender.participantId, senderName: sender.name, timestamp: Date.wireNow, payload: payload)
        let persist = args.options?.persist ?? false
        let meetingId = args.meetingId
        let recipients = audience
        try await events.transact { transaction in
            let event = MeetingEvent(type: MeetingEventType.pubsubMessage, message: message, audience: recipients)
            guard let stored = try await transaction.append([try Self.event(meetingId, event)]).first else { return }
            if persist {
                try await transaction.save(PersistedPubSubRecord(meetingId: meetingId, message: message, audience: recipients, offset: Int64(stored.event.offset)))
            }
        }
        return message
    }

    /// The persisted messages of a topic the caller may see, oldest first.
    func messages(_ args: PubSubTopicArgs, caller: Caller) async throws -> [PubSubMessage] {
        let identity = caller.identity
        if (try? await mine(args.meetingId, caller)) == nil { try await authorizeRead(identity, meetingId: args.meetingId) }
        let query = RecordQuery(kind: PersistedPubSubRecord.recordKind, scope: PersistedPubSubRecord.scope(args.meetingId, args.topic), limit: 10_000)
        return try await storage.list(PersistedPubSubRecord.self, query)
            .filter { $0.audience?.contains(identity.userId) ?? true }
            .map(\.message)
    }
}
