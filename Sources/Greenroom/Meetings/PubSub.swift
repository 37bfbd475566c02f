import Foundation
import GreenroomProtocol

/// A meeting's pub/sub: messages on topics, to everyone or to some participants, kept for
/// later subscribers when asked.
///
/// ```swift
/// await meeting.pubsub.subscribe(topic: "ACK", forListener: self)
/// try await meeting.pubsub.publish(topic: "ACK", message: "ACCEPTED", options: [:], payload: ["receiverId": "host-1"])
/// ```
public final class PubSub: Sendable {
    private struct State {
        var listeners: [String: [ObjectIdentifier: WeakListener]] = [:]
        /// The ids each listener has been given, so that a persisted message fetched on
        /// subscribing and the same message arriving live are delivered once.
        var delivered: [String: Set<String>] = [:]
    }

    private let state = Locked(State())
    private let owner = Locked<WeakMeeting>(WeakMeeting())
    var meeting: Meeting? {
        get { owner.withLock { $0.meeting } }
        set { owner.withLock { $0.meeting = newValue } }
    }

    /// Publishes a message. `options`: `persist` keeps it for later subscribers and
    /// ``getMessagesForTopic(_:)``; `sendOnly` delivers it to those participants only.
    @discardableResult
    public func publish(topic: String, message: String, options: PubSubPublishOptions = [:], payload: [String: RawJSON] = [:]) async throws -> PubSubMessage {
        guard let meeting else { throw GreenroomError(.meetingNotJoined, "the meeting is gone") }
        return try await meeting.client.send(MeetingOperation.publish, args: PubSubPublishArgs(
            meetingId: meeting.id, topic: topic, message: message, payload: payload.isEmpty ? nil : payload, options: options))
    }

    /// Publishes a message with the seed's payload literal, `[String: String]`
    /// (`["receiverId": participant.id]`). Read it back as the seed does,
    /// `message.payload["receiverId"] as? String`, or with RawJSON's accessors,
    /// `message.payload["receiverId"]?.stringValue` (see `PubSubPayload`).
    @discardableResult
    public func publish(topic: String, message: String, options: PubSubPublishOptions = [:], payload: [String: String]) async throws -> PubSubMessage {
        try await publish(topic: topic, message: message, options: options, payload: payload.mapValues(RawJSON.string))
    }

    /// Publishes a message with a `[String: Any]` payload of JSON-representable values
    /// (`RawJSON(converting:at:)`). - Throws: `invalidParameterValue`, naming the
    /// first value that is not JSON, before anything is sent.
    @discardableResult
    public func publish(topic: String, message: String, options: PubSubPublishOptions = [:], payload: [String: Any]) async throws -> PubSubMessage {
        let json = try RawJSON(converting: payload, at: "payload")
        return try await publish(topic: topic, message: message, options: options, payload: json.dictionaryValue ?? [:])
    }

    /// Subscribes `listener` to a topic: it first receives the topic's persisted messages,
    /// then each new one. Failures reach ``MeetingEventListener/onError(error:)``.
    public func subscribe(topic: String, forListener listener: any PubSubMessageListener) async {
        state.withLock { $0.listeners[topic, default: [:]][ObjectIdentifier(listener)] = WeakListener(listener) }
        do {
            for message in try await getMessagesForTopic(topic) { await deliver(message, only: listener) }
        } catch {
            await meeting?.report(error)
        }
    }

    /// Stops delivering a topic to `listener`.
    public func unsubscribe(topic: String, forListener listener: any PubSubMessageListener) async {
        state.withLock { state in
            state.listeners[topic]?[ObjectIdentifier(listener)] = nil
            state.delivered[Self.key(topic, listener)] = nil
        }
    }

    /// The topic's persisted messages the local participant may see, oldest first (read a
    /// page of 100 at a time).
    public func getMessagesForTopic(_ topic: String) async throws -> [PubSubMessage] {
        guard let meeting else { throw GreenroomError(.meetingNotJoined, "the meeting is gone") }
        var messages: [PubSubMessage] = []
        while true {
            let page = try await meeting.client.send(MeetingOperation.messages, args: PubSubTopicArgs(
                meetingId: meeting.id, topic: topic, after: messages.last?.id, limit: Limits.maxPageSize))
            messages += page
            if page.count < Limits.maxPageSize { return messages }
        }
    }

    private static func key(_ topic: String, _ listener: any PubSubMessageListener) -> String {
        "\(topic)|\(ObjectIdentifier(listener).hashValue)"
    }

    /// Hands a message to its topic's listeners (or one of them), each once.
    func deliver(_ message: PubSubMessage, only target: (any PubSubMessageListener)? = nil) async {
        let listeners = state.withLock { state -> [any PubSubMessageListener] in
            let all = (state.listeners[message.topic] ?? [:]).values.compactMap { $0.get((any PubSubMessageListener).self) }
            let chosen = target.map { target in all.filter { $0 === target } } ?? all
            return chosen.filter { listener in state.delivered[Self.key(message.topic, listener), default: []].insert(message.id).inserted }
        }
        guard !listeners.isEmpty else { return }
        await MainActor.run { for listener in listeners { listener.onMessageReceived(message) } }
    }
}

/// The meeting a ``PubSub`` belongs to, held weakly (the meeting holds its pub/sub).
struct WeakMeeting: Sendable {
    weak var meeting: Meeting?
}
