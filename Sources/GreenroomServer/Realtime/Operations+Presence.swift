import Foundation
import GreenroomProtocol

extension CommandRouter {
    /// `presence.join`, `presence.leave`, `presence.list`: on any stream the caller may read.
    mutating func registerPresenceOperations() {
        on(StreamOperation.presenceJoin) { (context, args: PresenceJoinArgs) -> PresenceEntry in
            try await context.core.joinPresence(context.connection, args)
        }
        on(StreamOperation.presenceLeave) { (context, args: PresenceStreamArgs) -> EmptyResult in
            try context.core.refuseRosterStream(args.stream)
            guard context.connection.removePresence(args.stream) else {
                throw GreenroomError(.notFound, "not present on \(args.stream)")
            }
            try await context.core.leavePresence(context.connection, stream: args.stream, reason: "left")
            return EmptyResult()
        }
        on(StreamOperation.presenceList) { (context, args: PresenceListArgs) -> [PresenceEntry] in
            try await context.core.subscriptions.authorizeRead(context.identity, stream: args.stream)
            let limit = args.limit ?? Limits.maxPageSize
            guard (1...Limits.maxPageSize).contains(limit) else {
                throw GreenroomError(.invalidParameterValue, "limit must be between 1 and \(Limits.maxPageSize)")
            }
            return try await context.core.storage.presence(stream: args.stream, after: args.after, limit: limit)
        }
    }
}

extension ServerCore {
    func clientId(_ connection: ClientConnection) -> String { roster.clientId(connectionId: connection.id) }

    /// Refuses a client's own presence on a stream whose capability keeps its roster in
    /// the presence table (a meeting's, a live event's, a user's `online:` stream): there
    /// every entry is the capability's, and client data must never be read as one.
    func refuseRosterStream(_ stream: String) throws {
        guard rosterOwner(for: stream) != nil else { return }
        throw GreenroomError(.permissionDenied, "presence on \(stream) is its roster, kept by the server: join the room itself instead")
    }

    func joinPresence(_ connection: ClientConnection, _ args: PresenceJoinArgs) async throws -> PresenceEntry {
        guard StreamName.isValid(args.stream) else { throw GreenroomError(.invalidParameterValue, "invalid stream name") }
        try refuseRosterStream(args.stream)
        try await subscriptions.authorizeRead(connection.identity, stream: args.stream)
        let data = args.data ?? .dictionary([:])
        let size = try data.jsonData().count
        guard size <= Limits.maxExtraDataBytes else {
            throw GreenroomError(.payloadTooLarge, "presence data is \(size) bytes; the limit is \(Limits.maxExtraDataBytes)")
        }
        // To the millisecond, as the wire carries it: a page of the list starts after an
        // entry's join time as a client read it.
        let now = Date.wireNow
        let entry = PresenceEntry(
            stream: args.stream, clientId: clientId(connection), userId: connection.identity.userId, data: data,
            joinedAt: now, expiresAt: now.addingTimeInterval(configuration.presenceTTL), node: nodeId)
        guard connection.addPresence(args.stream, limit: StreamSubscriptions.maxPerConnection) else {
            throw GreenroomError(.rateLimited, "a connection may be present on at most \(StreamSubscriptions.maxPerConnection) streams")
        }
        try await events.transact { transaction in
            let fresh = try await transaction.putPresence(entry)
            _ = try await transaction.append([EventAppend(
                stream: args.stream, type: fresh ? "presence.joined" : "presence.updated", data: try RawJSON(encoding: entry))])
        }
        return entry
    }

    /// Removes a connection's presence on a stream and tells the stream why, in one transaction.
    func leavePresence(_ connection: ClientConnection, stream: String, reason: String) async throws {
        let clientId = clientId(connection)
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

    /// Leaves every stream a closing connection was present on.
    func leaveAllPresence(_ connection: ClientConnection, reason: String) async {
        for stream in connection.presenceStreams {
            _ = connection.removePresence(stream)
            do {
                try await leavePresence(connection, stream: stream, reason: reason)
            } catch {
                logger.warning("presence of connection \(connection.id) on \(stream) is left to expire: \(error)")
            }
        }
    }
}
