import GreenroomProtocol

/// The session of a WebSocket client: roster notes on its connection, subscriptions ended.
struct ConnectionSession: CallerSession {
    let connection: ClientConnection

    func holdRoster(stream: String, key: String) { connection.addRoster(stream: stream, key: key) }
    func releaseRoster(stream: String, key: String) { connection.removeRoster(stream: stream, key: key) }
    var rosterEntries: [(stream: String, key: String)] { connection.rosterEntries }

    func endSubscription(_ stream: String) {
        connection.endSubscription(stream)
    }
}
