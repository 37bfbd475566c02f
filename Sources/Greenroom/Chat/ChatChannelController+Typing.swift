import Foundation

extension ChatChannelController {
    // MARK: Typing

    /// The members typing now, the reader excluded (Stream's `currentlyTypingUsers`): each
    /// until its `typing.stop`, or `TypingIndicator.expiry` after its last refresh.
    public var currentlyTypingUsers: Set<String> { state.withLock { Set($0.typing.keys) } }

    /// Tells the channel the reader pressed a key (Stream's `sendKeystrokeEvent`): sends
    /// `typing.start` unless one went out within `TypingIndicator.refresh`, and
    /// `typing.stop` five seconds after the last keystroke. Call it on every keystroke.
    public func keystroke() async throws {
        let send = state.withLock { state -> Bool in
            let now = ContinuousClock.now
            state.typingStop?.cancel()
            state.typingStop = Task { [weak self] in
                try? await Task.sleep(for: .seconds(5))
                guard !Task.isCancelled else { return }
                try? await self?.stopTyping()
            }
            if let sent = state.typingSentAt, now - sent < TypingIndicator.refresh { return false }
            state.typingSentAt = now
            return true
        }
        guard send else { return }
        let _: EmptyResult = try await client.send(ChatOperation.typing, args: TypingArgs(channelId: channelId, typing: true))
    }

    /// The completion-handler form of ``keystroke()``.
    public func sendKeystrokeEvent(completion: (@MainActor @Sendable ((any Error)?) -> Void)? = nil) {
        complete(completion) { try await self.keystroke() }
    }

    /// Tells the channel the reader started typing (Stream's `sendStartTypingEvent`); it
    /// holds for `TypingIndicator.expiry` unless sent again.
    public func startTyping() async throws {
        state.withLock { $0.typingSentAt = ContinuousClock.now }
        let _: EmptyResult = try await client.send(ChatOperation.typing, args: TypingArgs(channelId: channelId, typing: true))
    }

    /// Tells the channel the reader stopped typing (Stream's `sendStopTypingEvent`).
    public func stopTyping() async throws {
        state.withLock { state in
            state.typingSentAt = nil
            state.typingStop?.cancel()
            state.typingStop = nil
        }
        let _: EmptyResult = try await client.send(ChatOperation.typing, args: TypingArgs(channelId: channelId, typing: false))
    }

    /// Takes a typing signal in: another member starts (or refreshes) or stops typing.
    func receiveTyping(_ signal: StreamSignal) async {
        guard signal.type == ChatEventType.typingStart || signal.type == ChatEventType.typingStop,
              let indicator = try? signal.data.decode(as: TypingIndicator.self),
              indicator.userId != client.currentUserId else { return }
        let starts = signal.type == ChatEventType.typingStart
        let changed = state.withLock { state -> Bool in
            let known = state.typing[indicator.userId] != nil
            if starts {
                state.typing[indicator.userId] = .now + TypingIndicator.expiry
                if state.typingSweep == nil { state.typingSweep = Task { [weak self] in await self?.sweepTyping() } }
            } else {
                state.typing[indicator.userId] = nil
            }
            return known != starts
        }
        changes.yield(ChatEvent(type: signal.type, channelId: indicator.channelId, actorId: indicator.userId))
        if changed { await tellTyping() }
    }

    /// Forgets each typist as its indicator expires, until none is left.
    private func sweepTyping() async {
        while !Task.isCancelled {
            let next = state.withLock { $0.typing.values.min() }
            guard let next else { break }
            try? await Task.sleep(until: next, clock: .continuous)
            let expired = state.withLock { state -> Bool in
                let now = ContinuousClock.now
                let before = state.typing.count
                state.typing = state.typing.filter { $0.value > now }
                return state.typing.count != before
            }
            if expired { await tellTyping() }
        }
        state.withLock { state in
            state.typingSweep = nil
            // A typist added as the sweep ended gets a sweep of its own.
            if !state.typing.isEmpty { state.typingSweep = Task { [weak self] in await self?.sweepTyping() } }
        }
    }

    private func tellTyping() async {
        let (typing, delegate) = state.withLock { (Set($0.typing.keys), $0.delegate) }
        guard let delegate else { return }
        await MainActor.run { delegate.channelController(self, didChangeTypingUsers: typing) }
    }
}
