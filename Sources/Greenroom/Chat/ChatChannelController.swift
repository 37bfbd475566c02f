import Foundation
import GreenroomProtocol

/// Told of a channel's changes, on the main actor. Every method is optional.
@MainActor
public protocol ChatChannelControllerDelegate: AnyObject, Sendable {
    /// An event of the channel arrived (after the controller's state took it in).
    func channelController(_ controller: ChatChannelController, didReceiveEvent event: ChatEvent)
    /// The channel's fields, member count or the reader's membership changed.
    func channelController(_ controller: ChatChannelController, didUpdateChannel channel: ChatChannel)
    /// The loaded messages changed (a message arrived, was edited, reacted to or deleted).
    func channelController(_ controller: ChatChannelController, didUpdateMessages messages: [ChatMessage])
    /// The members typing changed (the reader excluded).
    func channelController(_ controller: ChatChannelController, didChangeTypingUsers typingUsers: Set<String>)
    /// A thread's loaded replies changed (a reply arrived, was edited, reacted to or deleted).
    func channelController(_ controller: ChatChannelController, didUpdateReplies replies: [ChatMessage], of parentMessageId: String)
    /// A member came online or went offline.
    func channelController(_ controller: ChatChannelController, didUpdatePresence presence: UserPresence)
}

extension ChatChannelControllerDelegate {
    /// Does nothing by default.
    public func channelController(_ controller: ChatChannelController, didReceiveEvent event: ChatEvent) {}
    /// Does nothing by default.
    public func channelController(_ controller: ChatChannelController, didUpdateChannel channel: ChatChannel) {}
    /// Does nothing by default.
    public func channelController(_ controller: ChatChannelController, didUpdateMessages messages: [ChatMessage]) {}
    /// Does nothing by default.
    public func channelController(_ controller: ChatChannelController, didChangeTypingUsers typingUsers: Set<String>) {}
    /// Does nothing by default.
    public func channelController(_ controller: ChatChannelController, didUpdateReplies replies: [ChatMessage], of parentMessageId: String) {}
    /// Does nothing by default.
    public func channelController(_ controller: ChatChannelController, didUpdatePresence presence: UserPresence) {}
}

/// One channel as the app sees it: the channel, its loaded messages kept current with its
/// events, the events themselves (as an `AsyncStream` and through a delegate), and the
/// calls that change the channel, its members and its messages.
///
/// ```swift
/// let controller = client.channelController(for: "general")
/// try await controller.synchronize()
/// controller.createNewMessage(text: "A new message", extraData: ["ticket": ["price": .double(20)]])
/// for await event in controller.events { print(event.type) }
/// ```
///
/// Events arrive in order and once each across reconnects; when the server could not
/// replay a gap, the controller reloads the channel and its latest messages.
public final class ChatChannelController: Sendable {
    struct State {
        var channel: ChatChannel?
        var messages: [ChatMessage] = []
        /// The loaded replies of threads, by parent id, oldest first.
        var threads: [String: [ChatMessage]] = [:]
        var pump: EventPump?
        weak var delegate: (any ChatChannelControllerDelegate)?
        /// Sends queued by ``createNewMessage(text:extraData:completion:)``, run one at a
        /// time in call order.
        var sends: AsyncStream<@Sendable () async -> Void>.Continuation?
        var sender: Task<Void, Never>?
        /// The members' read positions, by user id.
        var reads: [String: ChannelRead] = [:]
        /// The reader's unread messages.
        var unreadCount = 0
        /// Members' online state, as loaded and signalled since.
        var presence: [String: UserPresence] = [:]
        /// Members typing, with when each one's indicator expires.
        var typing: [String: ContinuousClock.Instant] = [:]
        /// When the reader last sent `typing.start`, while it is typing.
        var typingSentAt: ContinuousClock.Instant?
        /// Sends `typing.stop` once keystrokes stop.
        var typingStop: Task<Void, Never>?
        /// Forgets typists whose indicator expired.
        var typingSweep: Task<Void, Never>?
        /// With a local store: brings what the store showed up to date once connected.
        var catchUp: Task<Void, Never>?
    }

    /// The channel this controller is for.
    public let channelId: ChannelId
    /// The client it acts through.
    public let client: ChatClient
    let state = Locked(State())
    /// The streams ``events`` handed out.
    let changes = ChangeStreams<ChatEvent>()

    init(channelId: ChannelId, client: ChatClient) {
        self.channelId = channelId
        self.client = client
    }

    deinit {
        let (pump, sends, typingTasks) = state.withLock { ($0.pump, $0.sends, [$0.typingStop, $0.typingSweep, $0.catchUp]) }
        for task in typingTasks { task?.cancel() }
        pump?.cancel()
        sends?.finish()
        changes.finish()
    }

    /// Queues a send behind the earlier ones, so that messages go out in the order the app
    /// asked for them.
    func enqueueSend(_ job: @escaping @Sendable () async -> Void) {
        let queue = state.withLock { state -> AsyncStream<@Sendable () async -> Void>.Continuation in
            if let sends = state.sends { return sends }
            let (stream, continuation) = AsyncStream.makeStream(of: (@Sendable () async -> Void).self, bufferingPolicy: .unbounded)
            state.sends = continuation
            state.sender = Task {
                for await job in stream { await job() }
            }
            return continuation
        }
        queue.yield(job)
    }

    /// The channel as last loaded or changed by an event; `nil` before ``synchronize(messageLimit:)``.
    public var channel: ChatChannel? { state.withLock { $0.channel } }

    /// The loaded messages, oldest first; thread replies are in ``replies(of:)``.
    public var messages: [ChatMessage] { state.withLock { $0.messages } }

    /// Told of changes on the main actor. Held weakly.
    public var delegate: (any ChatChannelControllerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The channel's events from now on, in order. Each access makes a new stream; several
    /// may be iterated at once.
    public var events: AsyncStream<ChatEvent> { changes.makeStream() }

    /// Loads the channel and its latest messages and starts following its events (members
    /// only). Call it again after joining or accepting an invitation.
    ///
    /// With a local store (``ClientConfiguration/localStore``), what the store holds of the
    /// channel shows at once (``channel``, ``messages`` and the delegate), then the channel is
    /// brought up to date from the stored position: at once when connected, otherwise as
    /// soon as the client connects (the call returns without waiting then).
    public func synchronize(messageLimit: Int = 50) async throws {
        if let offline = client.offline {
            try await synchronize(from: offline, messageLimit: messageLimit)
            return
        }
        try await synchronizeFromServer(messageLimit: messageLimit)
    }

    /// Reads the channel, follows its stream and loads its latest messages from the server.
    func synchronizeFromServer(messageLimit: Int) async throws {
        var channel = try await client.channel(channelId)
        if channel.membership?.state == .joined, state.withLock({ $0.pump == nil }) {
            let subscription = try await client.subscribe(to: channelId.stream)
            start(subscription)
        }
        if channel.membership?.state == .joined {
            let page: Page<ChatMessage> = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channelId, limit: messageLimit))
            merge(page.items)
            try await loadReads()
            channel = try await client.channel(channelId)
        }
        let current = channel
        let delegate = state.withLock { state -> (any ChatChannelControllerDelegate)? in
            state.channel = current
            return state.delegate
        }
        if let delegate { await MainActor.run { delegate.channelController(self, didUpdateChannel: current) } }
    }

    /// The completion-handler form of ``synchronize(messageLimit:)``.
    public func synchronize(_ completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { try await self.synchronize() }
    }

    /// Stops following the channel's events.
    public func stopWatching() async {
        let pump = state.withLock { state in
            state.catchUp?.cancel()
            state.catchUp = nil
            defer { state.pump = nil }
            return state.pump
        }
        await pump?.stop(client)
    }

    /// Loads up to `limit` messages sent before `messageId` (the oldest loaded one when
    /// `nil`) and adds them to ``messages``. - Returns: the page, oldest first.
    @discardableResult
    public func loadPreviousMessages(before messageId: String? = nil, limit: Int = 25) async throws -> Page<ChatMessage> {
        let anchor = messageId ?? messages.first?.id
        let page: Page<ChatMessage> = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channelId, before: anchor, limit: limit))
        merge(page.items)
        return page
    }

    /// Loads up to `limit` messages sent after `messageId` and adds them to ``messages``.
    @discardableResult
    public func loadNextMessages(after messageId: String, limit: Int = 25) async throws -> Page<ChatMessage> {
        let page: Page<ChatMessage> = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channelId, after: messageId, limit: limit))
        merge(page.items)
        return page
    }

    /// A page of the channel's members (members only).
    public func loadMembers(filter: MemberFilter = .all, limit: Int? = nil, cursor: String? = nil) async throws -> Page<ChatChannelMember> {
        try await client.send(ChatOperation.members, args: MemberListArgs(channelId: channelId, filter: filter, limit: limit, cursor: cursor))
    }

    // MARK: Following events

    func start(_ subscription: StreamSubscription) {
        let pump = EventPump(following: subscription, for: self, event: { controller, event in
            if let chatEvent = ChatEvent(event) { await controller.apply(chatEvent) }
            if controller.client.offline != nil { await controller.keep(event, at: event.position) }
        }, gap: { controller in
            try? await controller.reload()
        }, signal: { controller, signal in
            if signal.type == OnlineSignal.presenceChanged {
                await controller.receivePresence(signal)
            } else {
                await controller.receiveTyping(signal)
            }
        })
        state.withLock { $0.pump = pump }
    }

    /// After a gap the server could not replay: reload the channel and the latest messages.
    func reload() async throws {
        let page: Page<ChatMessage> = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channelId, limit: 50))
        let channel = try await client.channel(channelId)
        state.withLock { state in
            state.channel = channel
            // Messages queued and not yet sent stay; everything else is the server's now.
            state.messages = state.messages.filter { LocalStore.isLocal($0.id) }
            state.threads = [:]
        }
        merge(page.items)
        await keepReloaded()
    }

    /// Adds or replaces messages (replies in their thread's list), keeping history order.
    func merge(_ incoming: [ChatMessage]) {
        guard !incoming.isEmpty else { return }
        let blocked = client.blocked.withLock { $0 }
        state.withLock { state in
            for message in incoming where !blocked.contains(message.senderId) {
                if let parent = message.threadParentId {
                    Self.place(message, in: &state.threads[parent, default: []])
                } else {
                    Self.place(message, in: &state.messages)
                }
            }
        }
    }

    /// The loaded message or reply with `message`'s id.
    private func loaded(_ message: ChatMessage) -> ChatMessage? {
        state.withLock { state in
            let list = message.threadParentId.map { state.threads[$0] ?? [] } ?? state.messages
            return list.first { $0.id == message.id }
        }
    }

    /// Puts `message` in `messages` (ordered by sequence): in place of the loaded message
    /// with its id, or inserted where its sequence goes. A binary search finds the place,
    /// so a message arriving in a long channel costs a search and, for a new one at the
    /// end, an append, never a rebuild of everything loaded.
    static func place(_ message: ChatMessage, in messages: inout [ChatMessage]) {
        var low = 0
        var high = messages.count
        while low < high {
            let middle = low + (high - low) / 2
            if messages[middle].sequence < message.sequence { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < messages.count, messages[index].sequence == message.sequence {
            if messages[index].id == message.id {
                messages[index] = message
                return
            }
            index += 1
        }
        messages.insert(message, at: index)
    }

    /// Takes an event into the state, then tells the observers and the delegate.
    private func apply(_ event: ChatEvent) async {
        let before = event.message.flatMap(loaded)
        if let message = event.message { merge([message]) }
        let parentLoaded = state.withLock { state in
            if let message = event.message, event.type == ChatEventType.messageUpdated || event.type == ChatEventType.messageDeleted {
                Self.requote(message, in: &state)
            }
            return event.thread.map { Self.takeThread($0, in: &state) } ?? false
        }
        countUnread(event, before: before)
        let (channel, delegate) = state.withLock { state -> (ChatChannel?, (any ChatChannelControllerDelegate)?) in
            let me = client.currentUserId
            if var channel = state.channel {
                switch event.type {
                case ChatEventType.channelUpdated:
                    if var updated = event.channel {
                        updated.membership = channel.membership
                        channel = updated
                    }
                case ChatEventType.memberJoined:
                    channel.memberCount += 1
                    if event.member?.userId == me { channel.membership = event.member }
                case ChatEventType.memberLeft, ChatEventType.memberBanned:
                    if event.member?.state == .joined { channel.memberCount -= 1 }
                    if event.member?.userId == me { channel.membership = nil }
                case ChatEventType.memberMuted, ChatEventType.memberUnmuted:
                    if event.member?.userId == me { channel.membership = event.member }
                case ChatEventType.operatorsAdded, ChatEventType.operatorsRemoved:
                    if let me, event.userIds?.contains(me) == true {
                        channel.membership?.isOperator = event.type == ChatEventType.operatorsAdded
                    }
                default:
                    break
                }
                state.channel = channel
            }
            return (state.channel, state.delegate)
        }
        changes.yield(event)
        let me = client.currentUserId
        let departed = event.type == ChatEventType.memberLeft || event.type == ChatEventType.memberBanned
        if event.type == ChatEventType.channelDeleted || (departed && event.member?.state == .joined && event.member?.userId == me) {
            // The server ends the reader's subscription after this event.
            state.withLock { $0.pump = nil }
            client.forgetSubscription(channelId.stream)
        }
        guard let delegate else { return }
        let messages = self.messages
        let thread = event.message?.threadParentId.map { ($0, replies(of: $0)) }
        await MainActor.run {
            delegate.channelController(self, didReceiveEvent: event)
            if let (parent, replies) = thread { delegate.channelController(self, didUpdateReplies: replies, of: parent) }
            if event.message != nil && (thread == nil || parentLoaded) { delegate.channelController(self, didUpdateMessages: messages) }
            if let channel, event.message == nil { delegate.channelController(self, didUpdateChannel: channel) }
        }
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
