import Foundation
import GreenroomProtocol

extension GreenroomClient {
    /// Whether the client keeps a local store (``ClientConfiguration/localStore``).
    public var hasLocalStore: Bool { offline != nil }

    /// The actions queued in the local store and not yet taken by the server, oldest first:
    /// those waiting to be sent (`pending`) and those the server refused (`failed`). Empty
    /// without a store.
    public func queuedActions() async throws -> [QueuedAction] {
        guard let store = await offline?.store() else { return [] }
        return try await store.actions()
    }

    /// Queues a failed action again, after the actions already pending; its message shows
    /// `pending` again.
    public func retry(_ action: QueuedAction) async throws {
        guard let offline, let store = await offline.store() else { return }
        var copy: ChatMessage?
        if let messageId = action.messageId, var stored = try await store.message(messageId, in: action.channelId), stored.localState == .failed {
            stored.localState = .pending
            stored.localError = nil
            copy = stored
        }
        try await store.setAction(action.id, failedWith: nil, copy: copy)
        if let copy { await offline.controller(for: action.channelId)?.showLocal(copy) }
        offline.wake()
    }

    /// Removes a queued action; a message it would have sent disappears.
    public func discard(_ action: QueuedAction) async throws {
        guard let offline, let store = await offline.store() else { return }
        let local = action.kind == .sendMessage ? action.messageId.map { (action.channelId, $0) } : nil
        try await store.discardAction(action.id, localMessage: local)
        if let local { await offline.controller(for: action.channelId)?.forgetLocal(local.1) }
    }

    /// Disconnects and removes the local store with everything in it, queued actions too.
    /// The client keeps nothing afterwards; make a new client for the next user.
    public func logout() async {
        await disconnect()
        await offline?.shutdown(destroying: true)
    }

    /// Queues an action in the local store, with the local copy of the message it changes
    /// (made from the action's id) in the same transaction; hands that copy to `show`
    /// before the sender may take the action, so that its outcome always comes after it.
    func enqueueAction(_ kind: QueuedAction.Kind, channel: ChannelId, messageId: String?, args: some Encodable,
                       copy: (@Sendable (Int64) -> ChatMessage)? = nil,
                       show: @Sendable (ChatMessage) async -> Void) async throws -> QueuedAction {
        guard let offline, let store = await offline.store() else {
            throw GreenroomError(.notConnected, "the client's local store is closed")
        }
        let action = try await store.enqueue(kind, channel: channel, messageId: messageId, args: try RawJSON(encoding: args), message: copy)
        if let local = copy?(action.id) { await show(local) }
        offline.wake()
        return action
    }

    /// Waits for a queued action's outcome: the server's result, or its refusal thrown.
    func outcome<Result: Decodable>(of action: QueuedAction, as type: Result.Type) async throws -> Result {
        guard let offline else { throw GreenroomError(.notConnected, "the client has no local store") }
        let raw = try await offline.outcome(of: action.id)
        do {
            return try raw.decode(as: Result.self)
        } catch {
            throw GreenroomError(.internalError, "the reply to \(action.kind.rawValue) does not decode as \(Result.self): \(error)")
        }
    }

    /// A first page (`cursor` `nil`) kept in the local store under `key`: while the client
    /// is not connected the kept copy answers; otherwise `fetch` does, and its answer is
    /// kept. Later pages, and every page without a store, come from `fetch`.
    func firstPage<Value: Codable & Sendable>(_ key: String, cursor: String?, fetch: () async throws -> Value) async throws -> Value {
        guard cursor == nil, let store = await offline?.store() else { return try await fetch() }
        if !connectionState.isConnected, let kept = try await store.document(key, as: Value.self) { return kept }
        let value = try await fetch()
        do {
            try await store.setDocument(key, value)
        } catch {
            logger.error("the local store could not keep \(key): \(error)")
        }
        return value
    }

    /// The user's channels from the local store, when the client is not connected and the
    /// first page is asked for; `nil` when the network must answer.
    func storedChannels(limit: Int?, cursor: String?) async throws -> Page<ChatChannel>? {
        guard cursor == nil, !connectionState.isConnected, let store = await offline?.store() else { return nil }
        let stored = try await store.listedChannels(limit: limit ?? configuration.localStoreLimits.channels)
        return stored.isEmpty ? nil : Page(items: stored, next: nil)
    }

    /// Keeps a first page of the user's channels in the local store; `complete` when it
    /// is the whole list.
    func keepChannels(_ page: Page<ChatChannel>, complete: Bool) async {
        guard let store = await offline?.store() else { return }
        do {
            try await store.saveListedChannels(page.items, complete: complete)
        } catch {
            logger.error("the local store could not keep the channel list: \(error)")
        }
    }
}
