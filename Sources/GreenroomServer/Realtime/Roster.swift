import Foundation
import GreenroomProtocol

/// Who is inside a capability (a live event's hosts and participants, a meeting's
/// participants), kept in the presence table so that it holds across nodes: each entry is
/// keyed by its role and user (or participant id), held by one connection on one node, and
/// renewed by that node while it lives. When a node dies its entries expire; when a
/// connection closes, the capability decides (leave at once, or stay for a grace period).
struct Roster: Sendable {
    let storage: any GreenroomStorage
    let nodeId: String
    let ttl: TimeInterval

    /// The id of a connection across nodes.
    func clientId(_ connection: ClientConnection) -> String { "\(nodeId)-\(connection.id)" }

    /// Puts the entry `key` on `stream`, held by `connection`; returns whether it is new
    /// (a detached entry taken back is not new).
    @discardableResult
    func put(_ connection: ClientConnection, stream: String, key: String, userId: String, data: [String: RawJSON]) async throws -> Bool {
        var data = data
        data["connection"] = .string(clientId(connection))
        let now = Date.wireNow
        connection.addRoster(stream: stream, key: key)
        return try await storage.putPresence(PresenceEntry(
            stream: stream, clientId: key, userId: userId, data: .dictionary(data), joinedAt: now,
            expiresAt: now.addingTimeInterval(ttl), node: nodeId))
    }

    /// Removes an entry (and the connection's note of it).
    @discardableResult
    func remove(_ connection: ClientConnection?, stream: String, key: String) async throws -> PresenceEntry? {
        connection?.removeRoster(stream: stream, key: key)
        return try await storage.removePresence(stream: stream, clientId: key)
    }

    /// Keeps an entry whose connection closed for `grace`, renewed by no node; it expires
    /// then unless its user comes back and puts it again.
    func detach(_ entry: PresenceEntry, grace: TimeInterval) async throws {
        var entry = entry
        entry.node = ""
        entry.expiresAt = Date.wireNow.addingTimeInterval(grace)
        _ = try await storage.putPresence(entry)
    }

    /// Whether `entry` is held by `connection` (and not by a newer connection of its user).
    func isHeld(_ entry: PresenceEntry, by connection: ClientConnection) -> Bool {
        entry.data["connection"]?.stringValue == clientId(connection) && !entry.node.isEmpty
    }

    /// The entries of a stream whose role is `role`.
    func entries(_ stream: String, role: String) async throws -> [PresenceEntry] {
        try await storage.presence(stream: stream).filter { $0.data["role"]?.stringValue == role }
    }
}

/// A capability that keeps a roster: told when a connection holding one of its entries
/// closes, and when an entry expires.
protocol RosterOwner: Sendable {
    /// A connection holding `entry` closed.
    func connectionClosed(_ entry: PresenceEntry, connection: ClientConnection) async throws
    /// `entry` expired (its node died, or its grace period passed) and was removed.
    func expired(_ entry: PresenceEntry) async throws
}

extension ServerCore {
    /// The capability whose roster lives on `stream`, if any.
    func rosterOwner(for stream: String) -> (any RosterOwner)? {
        switch StreamName.split(stream).kind {
        case "live": liveEvents
        case "meeting": meetings
        default: nil
        }
    }

    /// Hands each roster entry a closing connection held to its capability.
    func closeRoster(_ connection: ClientConnection) async {
        for (stream, key) in connection.rosterEntries {
            do {
                guard let owner = rosterOwner(for: stream),
                      let entry = try await storage.presenceEntry(stream: stream, clientId: key),
                      roster.isHeld(entry, by: connection) else { continue }
                try await owner.connectionClosed(entry, connection: connection)
            } catch {
                logger.warning("roster entry \(key) on \(stream) is left to expire: \(error)")
            }
        }
    }

    /// Tells the stream (or its capability) that an entry expired.
    func presenceExpired(_ entry: PresenceEntry) async throws {
        if let owner = rosterOwner(for: entry.stream) {
            try await owner.expired(entry)
        } else {
            try await announceLeft(entry, reason: "expired")
        }
    }
}
