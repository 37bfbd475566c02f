import Foundation
import GreenroomProtocol

/// A channel controller with a local store: what it shows comes from the store first, every
/// event it takes in is kept there with the stream position it reached, and the calls
/// that change messages are queued there and sent in order when connected.
extension ChatChannelController {
    // MARK: Synchronizing from the store

    /// Shows what the store holds of the channel, then brings it up to date from the stored
    /// position: now when connected (or when nothing is stored), else once connected.
    func synchronize(from offline: OfflineSupport, messageLimit: Int) async throws {
        offline.register(self)
        guard let store = await offline.store() else { return try await synchronizeFromServer(messageLimit: messageLimit) }
        let stored = try await store.storedChannel(channelId)
        if let stored { await show(stored) }
        if stored == nil || client.connectionState.isConnected {
            try await catchUp(messageLimit: messageLimit)
            return
        }
        let client = self.client
        let task = Task { [weak self] in
            for await phase in client.connectionStates where phase.isConnected {
                guard let self else { return }
                do {
                    try await self.catchUp(messageLimit: messageLimit)
                    return
                } catch {
                    client.logger.debug("channel \(self.channelId) could not catch up yet: \(error)")
                }
            }
        }
        let previous = state.withLock { state in
            defer { state.catchUp = task }
            return state.catchUp
        }
        previous?.cancel()
    }

    /// Puts what the store holds in the controller's state and tells the delegate.
    private func show(_ stored: StoredChannel) async {
        let blocked = client.blocked.withLock { $0 }
        let (delegate, messages) = state.withLock { state -> ((any ChatChannelControllerDelegate)?, [ChatMessage]) in
            state.channel = stored.channel
            for message in stored.messages where !blocked.contains(message.senderId) { Self.place(message, in: &state.messages) }
            for read in stored.reads where state.reads[read.userId] == nil { state.reads[read.userId] = read }
            state.unreadCount = stored.unreadCount
            return (state.delegate, state.messages)
        }
        guard let delegate else { return }
        await MainActor.run {
            delegate.channelController(self, didUpdateChannel: stored.channel)
            delegate.channelController(self, didUpdateMessages: messages)
        }
    }

    /// Reads the channel, follows its stream from the stored position (the events missed
    /// come as a replay, each kept as it is applied) and reloads the latest messages when
    /// the server could not replay from there or nothing was stored.
    private func catchUp(messageLimit: Int) async throws {
        guard let store = await client.offline?.store() else { return }
        var channel: ChatChannel
        do {
            channel = try await client.channel(channelId)
        } catch let error as GreenroomError where error.is(.notFound) || error.is(.notChannelMember) {
            try await forgetStored(showing: nil)
            throw error
        }
        guard channel.membership?.state == .joined else {
            // The store keeps only the channels the user has joined: one it left, was
            // removed from or only reads (a public one) keeps nothing on the device.
            try await forgetStored(showing: channel)
            return
        }
        if state.withLock({ $0.pump == nil }) {
            let since = try await store.position(of: channelId.stream)
            let subscription = try await client.subscribe(to: channelId.stream, since: since)
            start(subscription)
            if since == nil || !subscription.recovered {
                let page: Page<ChatMessage> = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channelId, limit: messageLimit))
                state.withLock { state in state.messages = state.messages.filter { LocalStore.isLocal($0.id) } }
                merge(page.items)
                try await loadReads()
                channel = try await client.channel(channelId)
                state.withLock { $0.channel = channel }
                try await keepLoaded(at: subscription.startPosition, replacing: true)
            } else {
                // The replay brings the channel's fields and counts up to date, event by
                // event from the stored state: a fresh read now would count them twice.
                // Fewer messages stored than asked for (a list row kept only the newest):
                // the latest page is merged in, the replay's events win over it.
                if state.withLock({ $0.messages.count { !LocalStore.isLocal($0.id) } }) < messageLimit {
                    let page: Page<ChatMessage> = try await client.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channelId, limit: messageLimit))
                    let loaded = Set(messages.map(\.id))
                    merge(page.items.filter { !loaded.contains($0.id) })
                }
                try await loadReads()
                try await keepLoaded(at: nil, replacing: false)
            }
        }
        if let delegate = self.delegate, let current = self.channel {
            let messages = self.messages
            await MainActor.run {
                delegate.channelController(self, didUpdateChannel: current)
                delegate.channelController(self, didUpdateMessages: messages)
            }
        }
    }

    /// Removes the channel from the store and what the controller showed from it (its
    /// messages and read state; queued local copies stay, to fail or be discarded), then
    /// shows `channel` as the server has it: a channel the user is no longer in, or none.
    /// An invitation stays listed, without messages.
    private func forgetStored(showing channel: ChatChannel?) async throws {
        if let store = await client.offline?.store() {
            try await store.removeChannel(channelId)
            if let channel, channel.membership?.state == .invited { try await store.saveListedChannels([channel], complete: false) }
        }
        let (delegate, messages) = state.withLock { state -> ((any ChatChannelControllerDelegate)?, [ChatMessage]) in
            state.channel = channel
            state.messages = state.messages.filter { LocalStore.isLocal($0.id) }
            state.reads = [:]
            state.unreadCount = 0
            return (state.delegate, state.messages)
        }
        guard let delegate else { return }
        await MainActor.run {
            if let channel { delegate.channelController(self, didUpdateChannel: channel) }
            delegate.channelController(self, didUpdateMessages: messages)
        }
    }

    /// Writes the controller's state to the store: the channel, its read state, its loaded
    /// messages (replacing those stored when `replacing`) and the position they reflect.
    private func keepLoaded(at position: StreamPosition?, replacing: Bool) async throws {
        guard let store = await client.offline?.store() else { return }
        let change = state.withLock { state in
            ChannelChange(channel: state.channel, messages: state.messages.filter { !LocalStore.isLocal($0.id) }, replacesMessages: replacing,
                          reads: Array(state.reads.values), unreadCount: state.unreadCount, position: position)
        }
        try await store.apply(change, to: channelId)
    }

    /// After a reload for a gap: the store holds what was reloaded, from the position the
    /// resubscription started at.
    func keepReloaded() async {
        guard client.offline != nil else { return }
        let position = state.withLock { $0.pump?.subscription.startPosition }
        do {
            try await keepLoaded(at: position, replacing: true)
        } catch {
            client.logger.error("the local store could not keep channel \(channelId) after a reload: \(error)")
        }
    }

    /// Keeps what an event changed, with the event's position, in one transaction; a
    /// channel deleted or left is forgotten.
    func keep(_ event: StreamEvent, at position: StreamPosition) async {
        guard let store = await client.offline?.store() else { return }
        let chat = ChatEvent(event)
        let me = client.currentUserId
        let departed = (chat?.type == ChatEventType.memberLeft || chat?.type == ChatEventType.memberBanned) && chat?.member?.userId == me
        do {
            if chat?.type == ChatEventType.channelDeleted || departed {
                try await store.removeChannel(channelId)
                return
            }
            let change = state.withLock { state -> ChannelChange in
                var change = ChannelChange(channel: state.channel, reads: Array(state.reads.values), unreadCount: state.unreadCount, position: position)
                if let message = chat?.message, message.threadParentId == nil, let current = state.messages.first(where: { $0.id == message.id }) {
                    change.messages = [current]
                }
                return change
            }
            try await store.apply(change, to: channelId)
            if chat?.type == ChatEventType.messageDeleted { try await store.eraseDeleted() }
        } catch {
            client.logger.error("the local store could not keep event \(position.offset) of channel \(channelId): \(error)")
        }
    }

    // MARK: Queued actions

    /// Queues a message (or reply) in the store: its local copy shows at once as `pending`.
    func queueSend(_ args: MessageSendArgs) async throws -> QueuedAction {
        var args = args
        let key = args.idempotencyKey ?? UUID().uuidString
        args.idempotencyKey = key
        let localId = LocalStore.localMessageId(key)
        let sender = state.withLock { $0.channel?.membership?.userId } ?? client.currentUserId ?? ""
        let now = Date()
        let queued = args
        return try await client.enqueueAction(.sendMessage, channel: channelId, messageId: localId, args: args, copy: { id in
            var message = ChatMessage(id: localId, channelId: queued.channelId, senderId: sender, text: queued.text, extraData: queued.extraData ?? [:],
                                      sequence: LocalStore.pendingSequenceBase + id, createdAt: now, updatedAt: now, mentionedUserIds: queued.mentionedUserIds)
            message.parentMessageId = queued.parentMessageId
            message.threadParentId = queued.threadParentId
            message.localState = .pending
            return message
        }, show: { copy in await self.showLocal(copy) })
    }

    /// Queues a message in call order (``enqueueSend(_:)``): its local copy shows at once,
    /// and `completion` gets the server's message or refusal whenever it comes.
    func enqueueOffline(_ args: MessageSendArgs, completion: ChatCompletion<ChatMessage>?) {
        enqueueSend {
            do {
                let action = try await self.queueSend(args)
                Task {
                    let result: Result<ChatMessage, any Error>
                    do {
                        result = .success(try await self.client.outcome(of: action, as: ChatMessage.self))
                    } catch {
                        result = .failure(error)
                    }
                    await MainActor.run { completion?(result) }
                }
            } catch {
                await MainActor.run { completion?(.failure(error)) }
            }
        }
    }

    /// Queues a change of a message the server has: the loaded copy shows the change at
    /// once as `pending`; returns the server's message once it took the change.
    func queueChange(_ kind: QueuedAction.Kind, messageId: String, args: some Encodable & Sendable,
                     change: @escaping @Sendable (inout ChatMessage) -> Void) async throws -> ChatMessage {
        guard !LocalStore.isLocal(messageId) else {
            throw GreenroomError(.invalidParameterValue, "message \(messageId) is not sent yet: wait until it is, or discard it")
        }
        let loaded = state.withLock { state -> ChatMessage? in
            if let message = state.messages.first(where: { $0.id == messageId }) { return message }
            for replies in state.threads.values {
                if let reply = replies.first(where: { $0.id == messageId }) { return reply }
            }
            return nil
        }
        var copy: (@Sendable (Int64) -> ChatMessage)?
        if let loaded {
            copy = { _ in
                var changed = loaded
                change(&changed)
                changed.localState = .pending
                changed.localError = nil
                return changed
            }
        }
        let action = try await client.enqueueAction(kind, channel: channelId, messageId: messageId, args: args, copy: copy,
                                                    show: { copy in await self.showLocal(copy) })
        return try await client.outcome(of: action, as: ChatMessage.self)
    }

    /// Queues `channel.markRead`: the unread count shows 0 at once.
    func queueMarkRead(_ args: MarkReadArgs) async throws -> ChannelRead {
        state.withLock { $0.unreadCount = 0 }
        let action = try await client.enqueueAction(.markRead, channel: channelId, messageId: nil, args: args, show: { _ in })
        return await took(try await client.outcome(of: action, as: ChannelRead.self))
    }

    /// Shows a local copy of a message (a queued action's) in place of the loaded one.
    func showLocal(_ copy: ChatMessage) async {
        merge([copy])
        await tellMessagesChanged(thread: copy.threadParentId)
    }

    /// Removes a local copy (its send was discarded).
    func forgetLocal(_ messageId: String) async {
        removeLocal(messageId)
        await tellMessagesChanged(thread: nil)
    }

    /// Takes a local copy out of the messages and threads loaded.
    private func removeLocal(_ messageId: String) {
        state.withLock { state in
            state.messages.removeAll { $0.id == messageId }
            for parent in state.threads.keys { state.threads[parent]?.removeAll { $0.id == messageId } }
        }
    }

    /// A queued action ended: the server's message replaces the local copy, or the local
    /// copy shows `failed` with the server's error.
    func queuedActionEnded(_ action: QueuedAction, _ result: Result<RawJSON, GreenroomError>) async {
        switch result {
        case .success(let raw):
            guard action.kind != .markRead, let message = try? raw.decode(as: ChatMessage.self) else { return }
            if action.kind == .sendMessage, let localId = action.messageId {
                removeLocal(localId)
                sentOwn(message)
            }
            merge([message])
            await tellMessagesChanged(thread: message.threadParentId)
        case .failure(let error):
            guard let messageId = action.messageId else { return }
            let thread = state.withLock { state -> String?? in
                if let index = state.messages.firstIndex(where: { $0.id == messageId && $0.localState == .pending }) {
                    state.messages[index].localState = .failed
                    state.messages[index].localError = error
                    return .some(nil)
                }
                for (parent, replies) in state.threads {
                    if let index = replies.firstIndex(where: { $0.id == messageId && $0.localState == .pending }) {
                        state.threads[parent]?[index].localState = .failed
                        state.threads[parent]?[index].localError = error
                        return .some(parent)
                    }
                }
                return nil
            }
            if let thread { await tellMessagesChanged(thread: thread) }
        }
    }

    private func tellMessagesChanged(thread: String?) async {
        guard let delegate = self.delegate else { return }
        let messages = self.messages
        let thread: (parent: String, replies: [ChatMessage])? = thread.map { ($0, self.replies(of: $0)) }
        await MainActor.run {
            if let thread { delegate.channelController(self, didUpdateReplies: thread.replies, of: thread.parent) }
            delegate.channelController(self, didUpdateMessages: messages)
        }
    }
}
