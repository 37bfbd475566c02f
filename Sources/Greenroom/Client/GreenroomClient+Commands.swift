import Foundation

extension GreenroomClient {
    /// Sends a command and decodes its result: `op` (one of the protocol's declared
    /// operations, such as `ChatOperation.sendMessage`) fixes the types of both.
    ///
    /// Waits for the connection when the client is (re)connecting, up to the command
    /// timeout. A command refused for its user's rate is sent again after the server's
    /// `retryAfterMs` (see ``ClientConfiguration/retriesRateLimitedCommands``). Otherwise a
    /// refused command throws the server's `GreenroomError`; a connection lost before the
    /// reply throws `connectionLost` (the outcome is unknown: resend with an idempotency key
    /// where the operation takes one).
    public func send<Args, Result>(_ op: WireOperation<Args, Result>, args: Args) async throws -> Result {
        let raw = try await sendPaced(op.name, args: try RawJSON(encoding: args))
        do {
            return try raw.decode(as: Result.self)
        } catch {
            throw GreenroomError(.internalError, "the reply to \(op.name) does not decode as \(Result.self): \(error)")
        }
    }

    /// Sends a command by name with raw arguments and returns its raw result (for tools
    /// that take an operation's name at run time, such as `greenroom call`).
    public func sendRaw(_ op: String, args: RawJSON? = nil) async throws -> RawJSON {
        try await sendPaced(op, args: args)
    }

    /// Sends once connected; a refusal for the user's rate (with a wait) is sent again
    /// after the wait while the command timeout allows.
    private func sendPaced(_ op: String, args: RawJSON?) async throws -> RawJSON {
        let deadline = ContinuousClock.now + configuration.commandTimeout
        while true {
            try await waitUntilReady()
            do {
                return try await sendNow(op, args: args)
            } catch let error as GreenroomError where error.is(.rateLimited) && configuration.retriesRateLimitedCommands {
                guard let wait = error.retryAfterMs.map({ Duration.milliseconds(max($0, 1)) }), .now + wait < deadline else { throw error }
                try await Task.sleep(for: wait)
            }
        }
    }

    /// Sends on the current connection without waiting for `connected` (used to resubscribe).
    func sendNow(_ op: String, args: RawJSON?, onReply: (@Sendable (RawJSON) -> Void)? = nil) async throws -> RawJSON {
        let timeout = configuration.commandTimeout
        let (id, socket) = state.withLock { state -> (UInt64, WebSocketConnection?) in
            defer { state.nextCommandId += 1 }
            return (state.nextCommandId, state.socket)
        }
        guard let socket else { throw GreenroomError(.connectionLost, "not connected") }
        let frame = try WireCoding.encode(CommandFrame(id: id, op: op, args: args))
        guard frame.count <= Limits.maxClientFrameBytes else {
            throw GreenroomError(.payloadTooLarge, "the command is \(frame.count) bytes; the server accepts at most \(Limits.maxClientFrameBytes)")
        }
        let timer = Task {
            try await Task.sleep(for: timeout)
            let command = self.state.withLock { $0.pending.removeValue(forKey: id) }
            command?.continuation.resume(throwing: GreenroomError(.timeout, "no reply to \(op) within \(timeout)"))
        }
        defer { timer.cancel() }
        let reply = try await withCheckedThrowingContinuation { continuation in
            state.withLock { $0.pending[id] = PendingCommand(continuation: continuation, onReply: onReply) }
            Task {
                do {
                    try await socket.send(text: frame)
                } catch {
                    let command = self.state.withLock { $0.pending.removeValue(forKey: id) }
                    command?.continuation.resume(throwing: GreenroomError(.connectionLost, "the command could not be sent: \(error)"))
                }
            }
        }
        // Parsed on the connection's event loop, which took the command out of `pending`
        // under this lock before resuming: ordered for ThreadSanitizer too (see `Locked.synchronize`).
        state.synchronize()
        return reply
    }

    /// Subscribes to `stream`, resuming after `since` when given.
    ///
    /// The subscription's ``StreamSubscription/events`` then yield every event after the
    /// position, in order, once each, across reconnects. Check ``StreamSubscription/recovered``:
    /// `false` means the server no longer held every event after `since`.
    public func subscribe(to stream: String, since: StreamPosition? = nil) async throws -> StreamSubscription {
        try await waitUntilReady()
        let subscription = StreamSubscription(stream: stream, client: self, since: since)
        let added = state.withLock { state -> Bool in
            guard state.subscriptions[stream] == nil else { return false }
            state.subscriptions[stream] = subscription
            return true
        }
        guard added else { throw GreenroomError(.alreadyExists, "already subscribed to \(stream)") }
        do {
            let result = try await sendSubscribe(subscription, since: since)
            subscription.setInitialRecovery(result.recovered)
            return subscription
        } catch {
            state.withLock { state in
                if state.subscriptions[stream] === subscription { state.subscriptions[stream] = nil }
            }
            throw error
        }
    }

    /// Publishes an event to an app stream (`app:NAME`) that the token grants publication of
    /// (`publish:app:NAME` or `publish:app:*`); every subscriber of the stream receives it.
    ///
    /// The reply comes once the event is stored durably. The server sets the data's
    /// `publishedBy` to this client's user. With an `idempotencyKey`, a retry after
    /// `connectionLost` stores nothing new and returns the first event (`duplicate`).
    /// Refusals: `permissionDenied` (not granted, or not an app stream),
    /// `invalidParameterValue`, `payloadTooLarge`.
    @discardableResult
    public func publish(to stream: String, type: String? = nil, data: [String: RawJSON],
                        idempotencyKey: String? = nil) async throws -> PublishResult {
        try await send(StreamOperation.publish, args: StreamPublishArgs(stream: stream, type: type, data: .dictionary(data), idempotencyKey: idempotencyKey))
    }

    /// Sends `stream.subscribe`; the reply sets the subscription's position in the read
    /// loop, before any event that follows it is handled. When `resubscribing`, the
    /// subscription's `resubscribed(recovered:)` note is queued there too, so that it comes
    /// before the events the resumed subscription delivers, never among them.
    func sendSubscribe(_ subscription: StreamSubscription, since: StreamPosition?, resubscribing: Bool = false) async throws -> SubscribeResult {
        let op = StreamOperation.subscribe
        let raw = try await sendNow(op.name, args: try RawJSON(encoding: SubscribeArgs(stream: subscription.stream, since: since))) { raw in
            guard let result = try? raw.decode(as: SubscribeResult.self) else { return }
            subscription.applySubscribeResult(result)
            if resubscribing { subscription.resubscribed(recovered: result.recovered) }
        }
        return try raw.decode(as: SubscribeResult.self)
    }

    /// Whether the client follows `stream` (and will resume it after a reconnect).
    func hasSubscription(_ stream: String) -> Bool {
        state.withLock { $0.subscriptions[stream] != nil }
    }

    /// Forgets a subscription the server ended (the reader lost the right to read it)
    /// without asking the server.
    func forgetSubscription(_ stream: String) {
        let subscription = state.withLock { $0.subscriptions.removeValue(forKey: stream) }
        subscription?.finish()
    }

    /// Stops receiving `subscription`'s stream.
    func unsubscribe(_ subscription: StreamSubscription) async throws {
        let removed = state.withLock { state -> Bool in
            guard state.subscriptions[subscription.stream] === subscription else { return false }
            state.subscriptions[subscription.stream] = nil
            return true
        }
        subscription.finish()
        guard removed, connectionState.isConnected else { return }
        let _: EmptyResult = try await send(StreamOperation.unsubscribe, args: UnsubscribeArgs(stream: subscription.stream))
    }
}
