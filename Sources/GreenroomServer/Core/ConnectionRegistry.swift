import Foundation
import GreenroomProtocol

/// The node's open connections, by user, so that a user's deletion or a shutdown reaches them;
/// and the users whose closed connections are still being cleaned up.
final class ConnectionRegistry: Sendable {
    private struct State {
        var connections: [Int: ClientConnection] = [:]
        var closing: Set<Int> = []
        var closingByUser: [String: Int] = [:]
        /// Each user's connections, closing ones included.
        var openByUser: [String: Int] = [:]
        /// Connections let in by ``reserve(user:limit:)`` and not started yet, by user.
        var reservedByUser: [String: [ContinuousClock.Instant]] = [:]
        /// Revocations seen lately, so that a connection whose token was checked just
        /// before one and that opens just after it is closed too.
        var revoked: [String: (notBefore: Date, seen: ContinuousClock.Instant)] = [:]
        var nextId = 1
    }

    /// How long a revocation is remembered for connections still opening: longer than
    /// any connection takes from its token's check to its start.
    static let revocationMemory = Duration.seconds(60)

    private let state = Locked(State())

    func nextId() -> Int { state.withLock { s in defer { s.nextId += 1 }; return s.nextId } }
    /// Adds an open connection; one whose token a revocation seen meanwhile refuses is
    /// closed with 4101.
    func add(_ connection: ClientConnection) {
        let refused = state.withLock { state in
            let userId = connection.identity.userId
            if state.connections.updateValue(connection, forKey: connection.id) == nil { state.openByUser[userId, default: 0] += 1 }
            if var reserved = state.reservedByUser[userId], !reserved.isEmpty {
                reserved.removeFirst()
                state.reservedByUser[userId] = reserved.isEmpty ? nil : reserved
            }
            guard let revocation = state.revoked[connection.identity.userId] else { return false }
            return connection.identity.issuedAt <= revocation.notBefore
        }
        if refused { connection.requestClose(.forbidden, reason: Self.revokedReason) }
    }

    static let revokedReason = "this user's access was revoked"

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
            let userId = connection.identity.userId
            guard state.connections.removeValue(forKey: connection.id) != nil else { return }
            let open = (state.openByUser[userId] ?? 1) - 1
            state.openByUser[userId] = open > 0 ? open : nil
            guard state.closing.remove(connection.id) != nil else { return }
            let left = (state.closingByUser[userId] ?? 1) - 1
            state.closingByUser[userId] = left > 0 ? left : nil
        }
    }

    /// How long a place ``reserve(user:limit:)`` holds for a connection that does not start:
    /// longer than an upgrade takes.
    static let reservationLifetime = Duration.seconds(10)
    /// Past this many users holding places, the lapsed places are dropped.
    static let pruneReservationsAt = 10_000

    /// Holds a place for a connection of `userId` about to open, unless the user's open
    /// connections (closing ones not counted) and places held reach `limit`. Checked and
    /// held at once, so that many upgrades at the same moment cannot pass the limit
    /// together; ``add(_:)`` takes the place, and a place not taken lapses. Without
    /// `holding`, only says whether a place is free.
    func reserve(user userId: String, limit: Int, holding: Bool = true, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            var places = Self.unlapsed(state.reservedByUser[userId] ?? [], now: now)
            let open = (state.openByUser[userId] ?? 0) - (state.closingByUser[userId] ?? 0)
            let free = open + places.count < limit
            if free && holding { places.append(now) }
            state.reservedByUser[userId] = places.isEmpty ? nil : places
            if free, state.reservedByUser.count > Self.pruneReservationsAt {
                state.reservedByUser = state.reservedByUser.compactMapValues { all in
                    let places = Self.unlapsed(all, now: now)
                    return places.isEmpty ? nil : places
                }
            }
            return free
        }
    }

    /// The places of `places` held less than ``reservationLifetime`` ago.
    private static func unlapsed(_ places: [ContinuousClock.Instant], now: ContinuousClock.Instant) -> [ContinuousClock.Instant] {
        places.filter { now - $0 < reservationLifetime }
    }

    /// Whether a closed connection of `userId` is still being cleaned up.
    func isClosing(user userId: String) -> Bool { state.withLock { $0.closingByUser[userId] != nil } }
    var all: [ClientConnection] { state.withLock { Array($0.connections.values) } }
    var count: Int { state.withLock { $0.connections.count } }
    func of(user: String) -> [ClientConnection] { all.filter { $0.identity.userId == user } }
}

extension ConnectionRegistry {
    /// A revocation of `userId`'s tokens issued at or before `instant`: closes its
    /// connections of such tokens with 4101 (and `reason`, if given), and those that open
    /// in the next minute.
    func revoke(user userId: String, issuedUpTo instant: Date, reason: String? = nil) {
        let now = ContinuousClock.now
        let targets = state.withLock { state in
            state.revoked = state.revoked.filter { now - $0.value.seen < Self.revocationMemory }
            let latest = max(state.revoked[userId]?.notBefore ?? .distantPast, instant)
            state.revoked[userId] = (latest, now)
            return state.connections.values.filter { $0.identity.userId == userId && $0.identity.issuedAt <= instant }
        }
        for connection in targets { connection.requestClose(.forbidden, reason: reason ?? Self.revokedReason) }
    }
}

extension ConnectionRegistry {
    /// Disconnects this node's clients (of one user, or all): with `code`, politely (a close
    /// frame that tells the client what to do); without, by cutting the socket. Returns how many.
    func disconnect(userId: String?, code: CloseCode?, reason: String) -> Int {
        let targets = userId.map(of(user:)) ?? all
        for connection in targets {
            if let code {
                connection.requestClose(code, reason: reason)
            } else {
                connection.drop()
            }
        }
        return targets.count
    }
}
