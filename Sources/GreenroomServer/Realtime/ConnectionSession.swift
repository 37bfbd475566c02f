import GreenroomProtocol

/// The session of a WebSocket client: roster notes on its connection, subscriptions ended
/// in the hub and on the connection.
struct ConnectionSession: CallerSession {
    let connection: ClientConnection
    let hub: EventHub

    func holdRoster(stream: String, key: String) { connection.addRoster(stream: stream, key: key) }
    func releaseRoster(stream: String, key: String) { connection.removeRoster(stream: stream, key: key) }
    var rosterEntries: [(stream: String, key: String)] { connection.rosterEntries }

    func endSubscription(_ stream: String) {
        hub.remove(connection, from: stream)
        _ = connection.endSubscription(stream)
    }
}
