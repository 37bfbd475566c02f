import Foundation
import GreenroomProtocol

/// What a subscription yields: its events, and a report after each resubscription.
public enum SubscriptionUpdate: Sendable, Hashable {
    /// The next event of the stream.
    case event(StreamEvent)
    /// The subscription was resumed after a reconnect. `recovered: false` means events
    /// were missed (the server's log no longer held them, or the stream was reset): reload
    /// the state the stream describes.
    case resubscribed(recovered: Bool)
}

/// A client's subscription to one stream: its events in order, once each, across reconnects.
///
/// Iterate either ``updates`` (events and recovery reports) or ``events`` (events only),
/// not both: they share one buffer.
public final class StreamSubscription: Sendable {
    private struct State {
        var position: StreamPosition?
        /// The position the last (re)subscription started from, before its events.
        var start: StreamPosition?
        var recovered = true
        var finished = false
    }

    /// The stream's name.
    public let stream: String
    /// Events and recovery reports, in order.
    public let updates: AsyncStream<SubscriptionUpdate>
    private let continuation: AsyncStream<SubscriptionUpdate>.Continuation
    /// The stream's signals (`StreamSignal`: ephemeral, such as a member typing), as they
    /// arrive while the subscription is live; never replayed after a reconnect. One
    /// iterator: the newest 256 wait when it falls behind.
    public let signals: AsyncStream<StreamSignal>
    private let signalContinuation: AsyncStream<StreamSignal>.Continuation
    private let state: Locked<State>
    private weak let client: GreenroomClient?

    init(stream: String, client: GreenroomClient, since: StreamPosition?) {
        self.stream = stream
        self.client = client
        self.state = Locked(State(position: since))
        (updates, continuation) = AsyncStream.makeStream(of: SubscriptionUpdate.self, bufferingPolicy: .unbounded)
        (signals, signalContinuation) = AsyncStream.makeStream(of: StreamSignal.self, bufferingPolicy: .bufferingNewest(256))
    }

    /// The events only, in order.
    public var events: AsyncCompactMapSequence<AsyncStream<SubscriptionUpdate>, StreamEvent> {
        updates.compactMap { update in
            if case .event(let event) = update { return event }
            return nil
        }
    }

    /// The position of the last event delivered: pass it as `since` to resume later, even
    /// from another process.
    public var position: StreamPosition? { state.withLock { $0.position } }

    /// Whether the last (re)subscription delivered every event after the position it
    /// resumed from.
    public var recovered: Bool { state.withLock { $0.recovered } }

    /// The position the last (re)subscription started from: every event after it was or
    /// will be delivered.
    var startPosition: StreamPosition? { state.withLock { $0.start } }

    /// Stops receiving the stream.
    public func unsubscribe() async throws {
        try await client?.unsubscribe(self)
    }

    func setInitialRecovery(_ recovered: Bool) {
        state.withLock { $0.recovered = recovered }
    }

    /// Adopts the server's position on (re)subscribing: when the gap could not be replayed,
    /// continue from the stream's head in its current epoch.
    func applySubscribeResult(_ result: SubscribeResult) {
        state.withLock { state in
            state.recovered = result.recovered
            if !result.recovered || state.position == nil || state.position?.epoch != result.epoch {
                if !result.recovered || state.position == nil {
                    state.position = StreamPosition(offset: result.offset, epoch: result.epoch)
                } else {
                    state.position?.epoch = result.epoch
                }
            }
            state.start = state.position
        }
    }

    func resubscribed(recovered: Bool) {
        continuation.yield(.resubscribed(recovered: recovered))
    }

    /// Delivers an event unless it was delivered already.
    func receive(_ event: StreamEvent) {
        let fresh = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            if let position = state.position, position.epoch == nil || position.epoch == event.epoch {
                guard event.offset > position.offset else { return false }
            }
            state.position = event.position
            return true
        }
        if fresh { continuation.yield(.event(event)) }
    }

    /// Hands on a signal of the stream.
    func receive(_ signal: StreamSignal) {
        guard !state.withLock({ $0.finished }) else { return }
        signalContinuation.yield(signal)
    }

    func finish() {
        state.withLock { $0.finished = true }
        continuation.finish()
        signalContinuation.finish()
    }
}
