import Foundation
import GreenroomProtocol
import Logging

/// A client's offline side: its local store, the controllers that show what the store
/// holds, and the task that sends queued actions, one at a time and in order, whenever the
/// client is connected.
final class OfflineSupport: Sendable {
    private struct State {
        weak var client: GreenroomClient?
        var controllers: [ChannelId: WeakChannelController] = [:]
        /// Callers waiting for an action's outcome (the `async` forms of the queued calls).
        var waiters: [Int64: [UUID: CheckedContinuation<RawJSON, any Error>]] = [:]
        /// Outcomes of actions nobody waited for yet, by action id.
        var unclaimed: [Int64: Result<RawJSON, GreenroomError>] = [:]
        var wake: AsyncStream<Void>.Continuation?
        var sender: Task<Void, Never>?
        /// Set by ``shutdown(destroying:)``: the store is no longer used.
        var closed = false
    }

    private struct WeakChannelController {
        weak var controller: ChatChannelController?
    }

    private let opening: Task<LocalStore?, Never>
    private let state = Locked(State())
    private let logger: Logger

    init(folder: URL, limits: LocalStoreLimits, logger: Logger) {
        self.logger = logger
        opening = Task {
            do {
                return try await LocalStore.open(folder: folder, limits: limits)
            } catch {
                logger.error("the local store in \(folder.path) could not be opened, so the client keeps nothing: \(error)")
                return nil
            }
        }
    }

    /// The store, once open; `nil` when it could not be opened or was closed.
    func store() async -> LocalStore? {
        let store = await opening.value
        return state.withLock { $0.closed } ? nil : store
    }

    /// Makes the store `user`'s: a store another user left is emptied first.
    func adopt(user: String) async {
        guard let store = await store() else { return }
        do {
            let owner = try await store.document(LocalStore.ownerKey, as: String.self)
            guard owner != user else { return }
            if owner != nil { try await store.clear() }
            try await store.setDocument(LocalStore.ownerKey, user)
        } catch {
            logger.error("the local store could not be given to \(user): \(error)")
        }
    }

    /// Starts the sender for `client` (once).
    func attach(_ client: GreenroomClient) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let started = state.withLock { state -> Bool in
            guard state.sender == nil else { return false }
            state.client = client
            state.wake = continuation
            state.sender = Task { [weak self] in
                for await _ in stream {
                    guard let self else { return }
                    await self.drain()
                }
            }
            return true
        }
        if started { continuation.yield() } else { continuation.finish() }
    }

    /// Makes the sender look at the queue (an action was queued, or the client connected).
    func wake() {
        state.withLock { $0.wake }?.yield()
    }

    /// Stops the sender and closes the store, removing its files when `destroying`.
    func shutdown(destroying: Bool) async {
        let (sender, wake, waiters) = state.withLock { state in
            state.closed = true
            defer {
                state.sender = nil
                state.wake = nil
                state.waiters = [:]
            }
            return (state.sender, state.wake, state.waiters.values.flatMap { $0.values })
        }
        wake?.finish()
        sender?.cancel()
        await sender?.value
        for waiter in waiters { waiter.resume(throwing: GreenroomError(.notConnected, "the client logged out")) }
        let store = await opening.value
        if destroying { await store?.destroy() } else { await store?.close() }
    }

    // MARK: Controllers

    /// Tells the queue which controller shows a channel, so that an action's outcome
    /// reaches it.
    func register(_ controller: ChatChannelController) {
        state.withLock { $0.controllers[controller.channelId] = WeakChannelController(controller: controller) }
    }

    func controller(for channel: ChannelId) -> ChatChannelController? {
        state.withLock { $0.controllers[channel]?.controller }
    }

    // MARK: Outcomes

    /// Waits until the queued action `id` is sent (its result) or refused (its error).
    /// Cancelling the task stops the wait; the action stays queued.
    func outcome(of id: Int64) async throws -> RawJSON {
        let token = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready = state.withLock { state -> Result<RawJSON, any Error>? in
                    if let result = state.unclaimed.removeValue(forKey: id) { return result.mapError { $0 as any Error } }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id, default: [:]][token] = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters[id]?.removeValue(forKey: token) }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Hands an action's outcome to those waiting for it, or keeps it for the caller about
    /// to wait (the sender may finish an action before its caller starts waiting). Only
    /// the newest outcomes nobody claimed are kept.
    private func resolve(_ id: Int64, _ result: Result<RawJSON, GreenroomError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<RawJSON, any Error>] in
            guard let waiting = state.waiters.removeValue(forKey: id), !waiting.isEmpty else {
                state.unclaimed[id] = result
                if state.unclaimed.count > Self.unclaimedLimit, let oldest = state.unclaimed.keys.min() { state.unclaimed[oldest] = nil }
                return []
            }
            return Array(waiting.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }

    private static let unclaimedLimit = 256

    // MARK: Sending

    /// Sends pending actions in order while the client is connected. A refusal marks the
    /// action failed and goes on; a lost connection or a timeout stops until the client
    /// is connected again, and the same action (with the same idempotency key) goes next.
    private func drain() async {
        guard let store = await store() else { return }
        while !Task.isCancelled {
            guard let client = state.withLock({ $0.client }), client.connectionState.isConnected else { return }
            let action: QueuedAction
            do {
                guard let next = try await store.nextPendingAction() else { return }
                action = next
            } catch {
                logger.error("the local store's queue could not be read: \(error)")
                return
            }
            do {
                let raw = try await client.sendRaw(action.kind.rawValue, args: action.args)
                await completed(action, raw, store)
            } catch let error as GreenroomError where Self.isTransient(error) {
                // Connected again soon, or a reply that did not come: the same action goes
                // again once the client reports it is connected (or after the server's wait).
                try? await Task.sleep(for: .milliseconds(max(200, error.retryAfterMs ?? 0)))
            } catch let error as GreenroomError {
                await failed(action, error, store)
            } catch {
                await failed(action, GreenroomError(.internalError, "\(error)"), store)
            }
        }
    }

    /// Errors after which the outcome is unknown or the command never left, or that say
    /// when to try again: sent again. A refusal for a quota (no wait) is final.
    static func isTransient(_ error: GreenroomError) -> Bool {
        error.is(.connectionLost) || error.is(.timeout) || error.is(.notConnected) || error.is(.overloaded)
            || (error.is(.rateLimited) && error.retryAfterMs != nil)
    }

    private func completed(_ action: QueuedAction, _ raw: RawJSON, _ store: LocalStore) async {
        let message = try? raw.decode(as: ChatMessage.self)
        let localId = action.kind == .sendMessage ? action.messageId : nil
        do {
            try await store.completeAction(action.id, message: message, replacing: localId)
        } catch {
            logger.error("the local store could not record action \(action.id): \(error)")
        }
        await controller(for: action.channelId)?.queuedActionEnded(action, .success(raw))
        resolve(action.id, .success(raw))
    }

    private func failed(_ action: QueuedAction, _ error: GreenroomError, _ store: LocalStore) async {
        var copy: ChatMessage?
        if let messageId = action.messageId, var stored = try? await store.message(messageId, in: action.channelId), stored.localState == .pending {
            stored.localState = .failed
            stored.localError = error
            copy = stored
        }
        do {
            try await store.setAction(action.id, failedWith: error, copy: copy)
        } catch {
            logger.error("the local store could not record action \(action.id)'s refusal: \(error)")
        }
        await controller(for: action.channelId)?.queuedActionEnded(action, .failure(error))
        resolve(action.id, .failure(error))
    }
}
