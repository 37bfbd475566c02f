import GreenroomProtocol

/// The node's open connections, by user, so that a user's deletion or a shutdown reaches them;
/// and the users whose closed connections are still being cleaned up.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [Int: ClientConnection] = [:]
        var closing: Set<Int> = []
        var closingByUser: [String: Int] = [:]
        var nextId = 1
    }

    private let state = Locked(State())

    func nextId() -> Int { state.withLock { s in defer { s.nextId += 1 }; return s.nextId } }
    func add(_ connection: ClientConnection) { state.withLock { $0.connections[connection.id] = connection } }

    /// Notes that a connection's socket closed; it stays until ``remove(_:)``, when its
    /// departure (presence, rosters) is done.
    func markClosing(_ connection: ClientConnection) {
        state.withLock { state in
            guard state.connections[connection.id] != nil, state.closing.insert(connection.id).inserted else { return }
            state.closingByUser[connection.identity.userId, default: 0] += 1
        }
    }

    func remove(_ connection: ClientConnection) {
        state.withLock { state in
            state.connections[connection.id] = nil
            guard state.closing.remove(connection.id) != nil else { return }
            let userId = connection.identity.userId
            let left = (state.closingByUser[userId] ?? 1) - 1
            state.closingByUser[userId] = left > 0 ? left : nil
        }
    }

    /// Whether a closed connection of `userId` is still being cleaned up.
    func isClosing(user userId: String) -> Bool { state.withLock { $0.closingByUser[userId] != nil } }
    var all: [ClientConnection] { state.withLock { Array($0.connections.values) } }
    var count: Int { state.withLock { $0.connections.count } }
    func of(user: String) -> [ClientConnection] { all.filter { $0.identity.userId == user } }
}

extension ConnectionRegistry: ConnectionControl {
    func close(user userId: String, code: CloseCode, reason: String) {
        for connection in of(user: userId) { connection.requestClose(code, reason: reason) }
    }
}
