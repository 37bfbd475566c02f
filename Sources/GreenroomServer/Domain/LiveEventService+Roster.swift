import Foundation
import GreenroomProtocol

extension LiveEventService: RosterOwner {
    /// The event as it is now and the stream position that state includes: the head is
    /// read first, so whatever follows it is replayed to a subscriber starting there.
    func entry(_ id: String) async throws -> LiveEventEntry {
        let stream = "live:\(id)"
        let info = try await storage.streamInfo(stream)
        let event = try await current(id)
        return LiveEventEntry(liveEvent: event, position: StreamPosition(offset: info.head, epoch: info.epoch))
    }

    /// Enters as a participant (in `ready` or `ongoing`). Counts change at once in storage
    /// and are announced by the next flush.
    func enter(_ id: String, connection: ClientConnection) async throws -> LiveEventEntry {
        let userId = connection.identity.userId
        let event = try await Self.load(storage, id).event
        guard event.state == .ready || event.state == .ongoing else { throw Self.wrongState(event, "enter") }
        let key = Self.participantKey(userId)
        try await roster.put(connection, stream: event.stream, key: key, userId: userId, data: ["role": .string(Self.participantRole)])
        do {
            try await events.transact { transaction in
                var record = try await Self.load(transaction, id)
                guard record.event.state == .ready || record.event.state == .ongoing else { throw Self.wrongState(record.event, "enter") }
                var changed = false
                if try await transaction.insert(try LiveEventVisitorRecord(liveEventId: id, userId: userId).asRecord()) {
                    record.event.cumulativeParticipantCount += 1
                    changed = true
                }
                let inside = try await participantCount(record.event.stream)
                if inside > record.event.peakParticipantCount {
                    record.event.peakParticipantCount = inside
                    changed = true
                }
                if changed { try await transaction.save(record) }
            }
        } catch {
            _ = try? await roster.remove(connection, stream: event.stream, key: key)
            throw error
        }
        markPending(id)
        return try await entry(id)
    }

    /// Exits as a participant; the caller's connection stops following the event.
    func exit(_ id: String, connection: ClientConnection) async throws {
        let stream = "live:\(id)"
        _ = try await Self.load(storage, id)
        guard try await roster.remove(connection, stream: stream, key: Self.participantKey(connection.identity.userId)) != nil else {
            throw GreenroomError(.actionNotAllowedInCurrentState, "not inside live event \(id)")
        }
        stopFollowing(stream, connection)
        markPending(id)
    }

    /// Enters as a host: a user in `userIdsForHost`, before the end, at most 6 at once. A
    /// host coming back within the grace period is connected again, not entered again.
    func enterAsHost(_ args: LiveEventHostArgs, connection: ClientConnection) async throws -> LiveEventEntry {
        let userId = connection.identity.userId
        let id = args.liveEventId
        let stream = try await events.transact { transaction -> String in
            var record = try await Self.load(transaction, id)
            guard record.event.userIdsForHost.contains(userId) else {
                throw GreenroomError(.actionNotAllowedForParticipant, "\(userId) is not one of the event's hosts")
            }
            guard record.event.state != .ended else { throw Self.wrongState(record.event, "enter as host") }
            let type: String
            let host: LiveEventHost
            if let index = record.event.hosts.firstIndex(where: { $0.userId == userId }) {
                guard record.event.hosts[index].state == .disconnected else { return record.event.stream }
                record.event.hosts[index].state = .connected
                host = record.event.hosts[index]
                type = LiveEventEventType.hostConnected
            } else {
                guard record.event.hosts.count < Limits.maxLiveEventHosts else {
                    throw GreenroomError(.actionNotAllowedInCurrentState, "\(Limits.maxLiveEventHosts) hosts are inside already")
                }
                host = LiveEventHost(hostId: "h" + Secrets.randomHex(bytes: 6), userId: userId, state: .connected,
                                     isAudioOn: args.turnAudioOn ?? true, isVideoOn: record.event.type == .video && (args.turnVideoOn ?? true),
                                     enteredAt: Date.wireNow)
                record.event.hosts.append(host)
                type = LiveEventEventType.hostEntered
            }
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(type, record.event, LiveEventEvent(type: type, liveEvent: record.event, host: host, actorId: userId))])
            return record.event.stream
        }
        try await roster.put(connection, stream: stream, key: Self.hostKey(userId), userId: userId, data: ["role": .string(Self.hostRole)])
        return try await entry(id)
    }

    /// Exits as a host.
    func exitAsHost(_ id: String, connection: ClientConnection) async throws {
        let userId = connection.identity.userId
        try await removeHost(id, userId: userId, required: true)
        try await roster.remove(connection, stream: "live:\(id)", key: Self.hostKey(userId))
    }

    /// Removes a host from the event and announces it; `required` makes a missing host an error.
    private func removeHost(_ id: String, userId: String, required: Bool) async throws {
        try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            guard let index = record.event.hosts.firstIndex(where: { $0.userId == userId }) else {
                if required { throw GreenroomError(.actionNotAllowedInCurrentState, "\(userId) is not inside live event \(id) as a host") }
                return
            }
            let host = record.event.hosts.remove(at: index)
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(LiveEventEventType.hostExited, record.event,
                                                             LiveEventEvent(type: "", liveEvent: record.event, host: host, actorId: userId))])
        }
    }

    /// Turns an entered host's microphone or camera on or off; each change is announced.
    func setHostMedia(_ args: LiveEventMediaArgs, userId: String) async throws -> LiveEventHost {
        try await events.transact { transaction in
            var record = try await Self.load(transaction, args.liveEventId)
            guard let index = record.event.hosts.firstIndex(where: { $0.userId == userId }) else {
                throw GreenroomError(.actionNotAllowedForParticipant, "only a host inside the event may do this")
            }
            var types: [String] = []
            if let on = args.audioOn, on != record.event.hosts[index].isAudioOn {
                record.event.hosts[index].isAudioOn = on
                types.append(on ? LiveEventEventType.hostUnmutedAudio : LiveEventEventType.hostMutedAudio)
            }
            if let on = args.videoOn, on != record.event.hosts[index].isVideoOn {
                guard record.event.type == .video || !on else {
                    throw GreenroomError(.actionNotAllowedInCurrentState, "an audio-only event has no video")
                }
                record.event.hosts[index].isVideoOn = on
                types.append(on ? LiveEventEventType.hostStartedVideo : LiveEventEventType.hostStoppedVideo)
            }
            let host = record.event.hosts[index]
            guard !types.isEmpty else { return host }
            try await transaction.save(record)
            let live = record.event
            _ = try await transaction.append(try types.map { try Self.event($0, live, LiveEventEvent(type: $0, host: host, actorId: userId)) })
            return host
        }
    }

    // MARK: RosterOwner

    /// A participant whose connection closed has exited; a host is disconnected and kept
    /// for the grace period.
    func connectionClosed(_ entry: PresenceEntry, connection: ClientConnection) async throws {
        let id = String(entry.stream.dropFirst("live:".count))
        guard entry.data["role"]?.stringValue == Self.hostRole else {
            try await roster.remove(nil, stream: entry.stream, key: entry.clientId)
            markPending(id)
            return
        }
        try await roster.detach(entry, grace: grace)
        try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            guard let index = record.event.hosts.firstIndex(where: { $0.userId == entry.userId }),
                  record.event.hosts[index].state == .connected else { return }
            record.event.hosts[index].state = .disconnected
            let host = record.event.hosts[index]
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(LiveEventEventType.hostDisconnected, record.event,
                                                             LiveEventEvent(type: "", liveEvent: record.event, host: host))])
        }
    }

    /// An entry expired: a host that did not come back (or whose node died) has exited; a
    /// participant's count changes.
    func expired(_ entry: PresenceEntry) async throws {
        let id = String(entry.stream.dropFirst("live:".count))
        if entry.data["role"]?.stringValue == Self.hostRole {
            try await removeHost(id, userId: entry.userId, required: false)
        } else {
            markPending(id)
        }
    }

    /// Ends a connection's subscription to a stream it may no longer read.
    func stopFollowing(_ stream: String, _ connection: ClientConnection) {
        hub.remove(connection, from: stream)
        connection.endSubscription(stream)
    }
}
