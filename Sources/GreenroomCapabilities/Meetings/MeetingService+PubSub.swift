import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension MeetingService {
    /// Publishes a message on a topic: on the meeting's stream (in order, resumable), only
    /// to the `sendOnly` participants' users when given, and kept for later subscribers
    /// when `persist` is set.
    package func publish(_ args: PubSubPublishArgs, caller: Caller) async throws -> PubSubMessage {
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
        let message = PubSubMessage(id: "ps" + RandomHex.string(bytes: 8), topic: args.topic, message: args.message,
                                    senderId: sender.participantId, senderName: sender.name, timestamp: Date.wireNow, payload: payload)
        let persist = args.options?.persist ?? false
        let meetingId = args.meetingId
        let recipients = audience
        let keptPerTopic = persistedPerTopic
        try await events.transact { transaction in
            let event = MeetingEvent(type: MeetingEventType.pubsubMessage, message: message, audience: recipients)
            guard let stored = try await transaction.append([try Self.event(meetingId, event)]).first else { return }
            if persist {
                try await transaction.save(PersistedPubSubRecord(meetingId: meetingId, message: message, audience: recipients, offset: Int64(stored.event.offset)))
                try await Self.trimPersisted(meetingId, topic: message.topic, keeping: keptPerTopic, in: transaction)
            }
        }
        return message
    }

    /// A page of the persisted messages of a topic the caller may see, oldest first: at
    /// most `limit` (100), after the message `after`. Records are read a page at a time
    /// until the page is full or the topic ends.
    package func messages(_ args: PubSubTopicArgs, caller: Caller) async throws -> [PubSubMessage] {
        let identity = caller.identity
        if (try? await mine(args.meetingId, caller)) == nil { try await authorizeRead(identity, meetingId: args.meetingId) }
        let limit = args.limit ?? Limits.maxPageSize
        guard (1...Limits.maxPageSize).contains(limit) else {
            throw GreenroomError(.invalidParameterValue, "limit must be between 1 and \(Limits.maxPageSize)")
        }
        let scope = PersistedPubSubRecord.scope(args.meetingId, args.topic)
        var query = RecordQuery(kind: PersistedPubSubRecord.recordKind, scope: scope, limit: Limits.maxPageSize)
        if let after = args.after {
            guard let anchor = try await storage.load(PersistedPubSubRecord.self, scope: scope, id: after) else {
                throw GreenroomError(.notFound, "no persisted message \(after) on topic \(args.topic)")
            }
            query.sortAbove = anchor.offset
        }
        var found: [PubSubMessage] = []
        while found.count < limit {
            let page = try await storage.list(PersistedPubSubRecord.self, query)
            found += page.filter { $0.audience?.contains(identity.userId) ?? true }.map(\.message)
            guard page.count == query.limit, let last = page.last else { break }
            query.sortAbove = last.offset
        }
        return Array(found.prefix(limit))
    }

    /// Removes a topic's oldest persisted messages past the newest `keeping`.
    package static func trimPersisted(_ meetingId: String, topic: String, keeping: Int, in transaction: any StorageTransaction) async throws {
        let scope = PersistedPubSubRecord.scope(meetingId, topic)
        let kept = try await transaction.countRecords(RecordQuery(kind: PersistedPubSubRecord.recordKind, scope: scope))
        guard kept > keeping else { return }
        let oldest = try await transaction.list(PersistedPubSubRecord.self,
                                                RecordQuery(kind: PersistedPubSubRecord.recordKind, scope: scope, limit: kept - keeping))
        for record in oldest { try await transaction.remove(PersistedPubSubRecord.self, scope: scope, id: record.recordId) }
    }
}
