import Foundation
import GreenroomProtocol
import Logging

/// Presence on streams: a client's own entries (`presence.join`, `.leave`, `.list`), and
/// the capabilities' rosters kept in the same table (a meeting's, a live event's, a user's
/// `online:`), whose entries only their capability writes; a closing connection's entries
/// of both, and expired ones.
final class Presences: Sendable {
    private let storage: any GreenroomStorage
    private let events: EventLog
    private let roster: Roster
    private let subscriptions: StreamSubscriptions
    /// The capabilities owning a kind of stream, by that kind.
    private let owners: [StreamKind: any Capability]
    private let ttl: TimeInterval
    private let nodeId: String
    private let logger: Logger

    init(storage: any GreenroomStorage, events: EventLog, roster: Roster, subscriptions: StreamSubscriptions,
         owners: [StreamKind: any Capability], ttl: TimeInterval, nodeId: String, logger: Logger) {
        self.storage = storage
        self.events = events
        self.roster = roster
        self.subscriptions = subscriptions
        self.owners = owners
        self.ttl = ttl
        self.nodeId = nodeId
        self.logger = logger
    }

    /// A page of the presence on a stream, for whoever may read the stream.
    func list(_ identity: Identity, _ args: PresenceListArgs) async throws -> [PresenceEntry] {
        try await subscriptions.authorizeRead(identity, stream: args.stream)
        let limit = args.limit ?? Limits.maxPageSize
        guard (1...Limits.maxPageSize).contains(limit) else {
            throw GreenroomError(.invalidParameterValue, "limit must be between 1 and \(Limits.maxPageSize)")
        }
        return try await storage.presence(stream: args.stream, after: args.after, limit: limit)
    }

    /// Refuses a client's own presence on a stream whose capability keeps its roster in
    /// the presence table (a meeting's, a live event's, a user's `online:` stream): there
    /// every entry is the capability's, and client data must never be read as one.
    func refuseRosterStream(_ stream: String) throws {
        guard rosterOwner(for: stream) != nil else { return }
        throw GreenroomError(.permissionDenied, "presence on \(stream) is its roster, kept by the server: join the room itself instead")
    }

    /// Puts the caller's presence on a stream it may read (or updates its data), and tells
    /// the stream in the same transaction.
    func join(_ caller: Caller, _ session: any StreamSession, _ args: PresenceJoinArgs) async throws -> PresenceEntry {
        guard StreamName.isValid(args.stream) else { throw GreenroomError(.invalidParameterValue, "invalid stream name") }
        try refuseRosterStream(args.stream)
        try await subscriptions.authorizeRead(caller.identity, stream: args.stream)
        let data = args.data ?? .dictionary([:])
        let size = try data.jsonData().count
        guard size <= Limits.maxExtraDataBytes else {
            throw GreenroomError(.payloadTooLarge, "presence data is \(size) bytes; the limit is \(Limits.maxExtraDataBytes)")
        }
        // To the millisecond, as the wire carries it: a page of the list starts after an
        // entry's join time as a client read it.
        let now = Date.wireNow
        let entry = PresenceEntry(
            stream: args.stream, clientId: caller.clientId, userId: caller.userId, data: data,
            joinedAt: now, expiresAt: now.addingTimeInterval(ttl), node: nodeId)
        guard session.holdPresence(args.stream, limit: StreamSubscriptions.maxPerConnection) else {
            throw GreenroomError(.rateLimited, "a connection may be present on at most \(StreamSubscriptions.maxPerConnection) streams")
        }
        try await events.transact { transaction in
            let fresh = try await transaction.putPresence(entry)
            _ = try await transaction.append([EventAppend(
                stream: args.stream, type: fresh ? "presence.joined" : "presence.updated", data: try RawJSON(encoding: entry))])
        }
        return entry
    }

    /// Removes a client's presence on a stream and tells the stream why, in one transaction.
    func leave(_ clientId: String, stream: String, reason: String) async throws {
        try await events.transact { transaction in
            guard let entry = try await transaction.removePresence(stream: stream, clientId: clientId) else { return }
            _ = try await transaction.append([Self.left(entry, reason: reason)])
        }
    }

    /// The `presence.left` event of an entry.
    static func left(_ entry: PresenceEntry, reason: String) -> EventAppend {
        EventAppend(stream: entry.stream, type: "presence.left",
                    data: ["clientId": .string(entry.clientId), "userId": .string(entry.userId), "reason": .string(reason)])
    }

    /// Leaves every stream a closing caller's session was present on.
    func leaveAll(_ caller: Caller, _ session: any StreamSession, reason: String) async {
        for stream in session.presenceStreams {
            _ = session.releasePresence(stream)
            do {
                try await leave(caller.clientId, stream: stream, reason: reason)
            } catch {
                logger.warning("presence of \(caller.clientId) on \(stream) is left to expire: \(error)")
            }
        }
    }

    /// The capability whose roster lives on `stream`, if any.
    func rosterOwner(for stream: String) -> (any RosterOwner)? {
        owners[StreamKind(of: stream)]?.rosterOwner
    }

    /// Hands each roster entry a closing caller's session held to its capability.
    func closeRoster(_ caller: Caller) async {
        let clientId = caller.clientId
        for (stream, key) in caller.session.rosterEntries {
            do {
                guard let owner = rosterOwner(for: stream),
                      let entry = try await storage.presenceEntry(stream: stream, clientId: key),
                      roster.isHeld(entry, by: clientId) else { continue }
                try await owner.connectionClosed(entry)
            } catch {
                logger.warning("roster entry \(key) on \(stream) is left to expire: \(error)")
            }
        }
    }

    /// Removes an entry that expired and tells its stream (or its capability) in the same
    /// transaction; nothing when another node took it first or it was renewed since.
    func expire(_ entry: PresenceEntry) async throws {
        struct Renewed: Error {}
        let owner = rosterOwner(for: entry.stream)
        let now = Date()
        let removed = try await events.transact { transaction -> Bool in
            guard let gone = try await transaction.removePresence(stream: entry.stream, clientId: entry.clientId) else { return false }
            // Renewed (or taken back) between the sweep's read and this removal: keep it.
            guard gone.expiresAt < now else { throw Renewed() }
            if let owner {
                try await owner.expired(gone, in: transaction)
            } else {
                _ = try await transaction.append([Self.left(gone, reason: "expired")])
            }
            return true
        }
        if removed { owner?.didExpire(entry) }
    }
}
