import GreenroomProtocol

/// How an SDK object follows its stream: a task that hands each event of a subscription to
/// the object, in order and once each across reconnects, and tells it when a resubscription
/// could not replay what it missed, so that it reads its state again. Channel controllers,
/// meetings, live events and video sessions each follow their stream through one of these.
///
/// The task holds its object weakly: an object nobody holds any more stops being fed.
final class EventPump: Sendable {
    /// The subscription followed.
    let subscription: StreamSubscription
    private let task: Task<Void, Never>
    private let signalTask: Task<Void, Never>?

    /// Starts handing `subscription`'s events to `event`, and calls `gap` after a
    /// resubscription that missed events, both with `owner` while it exists; its signals,
    /// when `signal` is given, go to `signal` as they come.
    init<Owner: AnyObject & Sendable>(following subscription: StreamSubscription, for owner: Owner,
                                      event: @escaping @Sendable (Owner, StreamEvent) async -> Void,
                                      gap: @escaping @Sendable (Owner) async -> Void = { _ in },
                                      signal: (@Sendable (Owner, StreamSignal) async -> Void)? = nil) {
        self.subscription = subscription
        signalTask = signal.map { handle in
            Task { [weak owner] in
                for await next in subscription.signals {
                    guard let owner else { return }
                    await handle(owner, next)
                }
            }
        }
        task = Task { [weak owner] in
            for await update in subscription.updates {
                guard let owner else { return }
                switch update {
                case .event(let next): await event(owner, next)
                case .resubscribed(let recovered): if !recovered { await gap(owner) }
                }
            }
        }
    }

    /// Stops handing events on; the subscription stays.
    func cancel() {
        task.cancel()
        signalTask?.cancel()
    }

    /// Stops handing events on and unsubscribes, unless the client has already dropped the
    /// subscription (it leaves a stream it was put out of by itself).
    func stop(_ client: GreenroomClient) async {
        task.cancel()
        signalTask?.cancel()
        if client.hasSubscription(subscription.stream) { try? await subscription.unsubscribe() }
    }
}
