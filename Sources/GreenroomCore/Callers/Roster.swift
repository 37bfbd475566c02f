import Foundation
import GreenroomProtocol
import GreenroomStorage

/// Who is inside a capability (a live event's hosts and participants, a meeting's
/// participants), kept in the presence table so that it holds across nodes: each entry is
/// keyed by its role and user (or participant id), held by one connection on one node, and
/// renewed by that node while it lives. When a node dies its entries expire; when a
/// connection closes, the capability decides (leave at once, or stay for a grace period).
///
/// Every change is made inside a write transaction, together with the checks that allow it
/// and the events that announce it.
package struct Roster: Sendable {
    package let nodeId: String
    package let ttl: TimeInterval

    /// The roster of node `nodeId`, whose entries expire `ttl` seconds after their last renewal.
    package init(nodeId: String, ttl: TimeInterval) {
        self.nodeId = nodeId
        self.ttl = ttl
    }

    /// The id of a connection across nodes.
    package func clientId(connectionId: Int) -> String { "\(nodeId)-\(connectionId)" }

    /// The entry `key` on `stream` held by `caller`'s connection on this node.
    package func entry(_ caller: Caller, stream: String, key: String, data: [String: RawJSON]) -> PresenceEntry {
        var data = data
        data["connection"] = .string(caller.clientId)
        let now = Date.wireNow
        return PresenceEntry(stream: stream, clientId: key, userId: caller.userId, data: .dictionary(data), joinedAt: now,
                             expiresAt: now.addingTimeInterval(ttl), node: nodeId)
    }

    /// Runs `body`, which puts the entry `key` on `stream` for `caller` in a transaction, with
    /// the connection noted as its holder first (so that a close during the write still
    /// hands the entry on); the note is taken back when `body` fails and the connection did
    /// not hold the entry before.
    package func holding<T>(_ caller: Caller, stream: String, key: String, _ body: () async throws -> T) async throws -> T {
        let held = caller.session.rosterEntries.contains { $0.stream == stream && $0.key == key }
        caller.session.holdRoster(stream: stream, key: key)
        do {
            return try await body()
        } catch {
            if !held { caller.session.releaseRoster(stream: stream, key: key) }
            throw error
        }
    }

    /// Keeps an entry whose connection closed for `grace`, renewed by no node; it expires
    /// then unless its user comes back and puts it again.
    package func detach(_ entry: PresenceEntry, grace: TimeInterval, in transaction: any StorageTransaction) async throws {
        var entry = entry
        entry.node = ""
        entry.expiresAt = Date.wireNow.addingTimeInterval(grace)
        try await transaction.putPresence(entry)
    }

    /// `entry` as `reader` holds it now, when it is still held by the same connection (not
    /// taken over by a newer one, detached or removed since it was read).
    package func stillHeld(_ entry: PresenceEntry, in reader: any PresenceReading) async throws -> PresenceEntry? {
        guard let current = try await reader.presenceEntry(stream: entry.stream, clientId: entry.clientId),
              current.node == entry.node, current.data["connection"] == entry.data["connection"] else { return nil }
        return current
    }

    /// The entry `key` on `stream` if the caller's connection holds it now (noted on the
    /// connection, stored, and held by it), as `reader` sees it.
    package func held(by caller: Caller, stream: String, key: String, in reader: any PresenceReading) async throws -> PresenceEntry? {
        guard caller.session.rosterEntries.contains(where: { $0.stream == stream && $0.key == key }),
              let entry = try await reader.presenceEntry(stream: stream, clientId: key), isHeld(entry, by: caller.clientId) else { return nil }
        return entry
    }

    /// Whether the caller's connection holds an entry of `stream`'s roster now: it is inside
    /// the room (a meeting's participant, a live event's host or participant), found without
    /// reading the rest of the roster.
    package func holdsAny(_ caller: Caller, stream: String, in reader: any PresenceReading) async throws -> Bool {
        for (entryStream, key) in caller.session.rosterEntries where entryStream == stream {
            if try await held(by: caller, stream: stream, key: key, in: reader) != nil { return true }
        }
        return false
    }

    /// Whether `entry` is held by the connection `clientId` (and not by a newer connection
    /// of its user, nor detached).
    package func isHeld(_ entry: PresenceEntry, by clientId: String) -> Bool {
        entry.data["connection"]?.stringValue == clientId && !entry.node.isEmpty
    }
}

/// A capability that keeps a roster: told when a connection holding one of its entries
/// closes, and when an entry expires.
package protocol RosterOwner: Sendable {
    /// The connection holding `entry` closed (the entry is still stored, held by it).
    func connectionClosed(_ entry: PresenceEntry) async throws
    /// `entry` expired (its node died, or its grace period passed) and was removed in
    /// `transaction`: what follows from it is stored and announced in the same one.
    func expired(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws
    /// After the expiry committed (for work outside storage).
    func didExpire(_ entry: PresenceEntry)
    /// `entry` was removed in `transaction` because its user was deleted: as an expiry,
    /// unless the capability tells it apart (``didExpire(_:)`` follows the commit too).
    func userDeleted(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws
}

extension RosterOwner {
    package func didExpire(_ entry: PresenceEntry) {}
    package func userDeleted(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {
        try await expired(entry, in: transaction)
    }
}
