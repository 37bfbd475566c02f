/// Watches the client's connection for an SDK object that must act when the connection
/// drops and again once it is back: a meeting joins again, a live event enters again. Only
/// while `active` says the object is in; the task holds the object weakly.
final class ReconnectWatcher: Sendable {
    private let task: Task<Void, Never>

    /// Starts watching `client`'s connection states from now on.
    init<Owner: AnyObject & Sendable>(_ client: GreenroomClient, for owner: Owner,
                                      active: @escaping @Sendable (Owner) -> Bool,
                                      dropped: @escaping @Sendable (Owner) async -> Void,
                                      back: @escaping @Sendable (Owner) async -> Void) {
        let states = client.connectionStates
        task = Task { [weak owner] in
            var isDropped = false
            for await connection in states {
                guard let owner else { return }
                guard active(owner) else { continue }
                switch connection {
                case .reconnecting where !isDropped:
                    isDropped = true
                    await dropped(owner)
                case .connected where isDropped:
                    isDropped = false
                    await back(owner)
                default:
                    break
                }
            }
        }
    }

    /// Stops watching.
    func cancel() {
        task.cancel()
    }
}
