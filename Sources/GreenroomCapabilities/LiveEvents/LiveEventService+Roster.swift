import Foundation
import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension LiveEventService: RosterOwner {
    /// The event as it is now and the stream position that state includes: the head is
    /// read first, so whatever follows it is replayed to a subscriber starting there.
    package func entry(_ id: String) async throws -> LiveEventEntry {
        let info = try await storage.streamInfo(StreamKind.live.stream(id))
        let event = try await current(id)
        return LiveEventEntry(liveEvent: event, position: StreamPosition(offset: info.head, epoch: info.epoch))
    }

    /// The live event id of a live event's stream.
    package static func eventId(of stream: String) throws -> String {
        guard let id = StreamKind.live.id(in: stream) else { throw GreenroomServerError.storage("\(stream) is not a live event's stream") }
        return id
    }

    /// Enters as a participant (in `ready` or `ongoing`). The entry, the counts the record
    /// keeps (inside, visitors, peak) are stored together, with no read of the roster beyond
    /// the entry itself; counts are announced by the next flush.
    package func enter(_ id: String, caller: Caller) async throws -> LiveEventEntry {
        let userId = caller.userId
        let stream = StreamKind.live.stream(id)
        let key = Self.participantKey(userId)
        let rosterEntry = roster.entry(caller, stream: stream, key: key, data: ["role": .string(Self.participantRole)])
        try await roster.holding(caller, stream: stream, key: key) {
            try await events.transact { transaction in
                try await transaction.lock(stream: stream)
                var record = try await Self.load(transaction, id)
                guard record.event.state == .ready || record.event.state == .ongoing else { throw Self.wrongState(record.event, "enter") }
                var changed = false
                if try await transaction.putPresence(rosterEntry) || record.inside == nil {
                    try await Self.count(1, into: &record, in: transaction)
                    changed = true
                }
                if try await transaction.insert(try LiveEventVisitorRecord(liveEventId: id, userId: userId).asRecord()) {
                    record.event.cumulativeParticipantCount += 1
                    changed = true
                }
                let inside = try await Self.inside(record, in: transaction)
                if inside > record.event.peakParticipantCount {
                    record.event.peakParticipantCount = inside
                    changed = true
                }
                if changed { try await transaction.save(record) }
            }
        }
        markPending(id)
        return try await entry(id)
    }

    /// Exits as a participant; the caller's connection stops following the event.
    package func exit(_ id: String, caller: Caller) async throws {
        let stream = StreamKind.live.stream(id)
        let key = Self.participantKey(caller.userId)
        try await events.transact { transaction in
            var record = try await Self.load(transaction, id)
            guard try await transaction.removePresence(stream: stream, clientId: key) != nil else {
                throw GreenroomError(.actionNotAllowedInCurrentState, "not inside live event \(id)")
            }
            try await Self.count(-1, into: &record, in: transaction)
            try await transaction.save(record)
        }
        caller.session.releaseRoster(stream: stream, key: key)
        caller.session.endSubscription(stream)
        markPending(id)
        await media.leave(MediaPlane.MemberKey(clientId: caller.clientId, stream: stream), reason: "left")
    }

    /// Enters as a host: a user in `userIdsForHost`, before the end, at most 6 at once. A
    /// host coming back within the grace period is connected again, not entered again. The
    /// event's host list, the roster entry and the announcement are one transaction.
    package func enterAsHost(_ args: LiveEventHostArgs, caller: Caller) async throws -> LiveEventEntry {
        let userId = caller.userId
        let id = args.liveEventId
        let stream = StreamKind.live.stream(id)
        let key = Self.hostKey(userId)
        let rosterEntry = roster.entry(caller, stream: stream, key: key, data: ["role": .string(Self.hostRole)])
        try await roster.holding(caller, stream: stream, key: key) {
            try await events.transact { transaction in
                var record = try await Self.load(transaction, id)
                guard record.event.userIdsForHost.contains(userId) else {
                    throw GreenroomError(.actionNotAllowedForParticipant, "\(userId) is not one of the event's hosts")
                }
                guard record.event.state != .ended else { throw Self.wrongState(record.event, "enter as host") }
                try await transaction.putPresence(rosterEntry)
                let type: String
                let host: LiveEventHost
                if let index = record.event.hosts.firstIndex(where: { $0.userId == userId }) {
                    guard record.event.hosts[index].state == .disconnected else { return }
                    record.event.hosts[index].state = .connected
                    host = record.event.hosts[index]
                    type = LiveEventEventType.hostConnected
                } else {
                    guard record.event.hosts.count < Limits.maxLiveEventHosts else {
                        throw GreenroomError(.actionNotAllowedInCurrentState, "\(Limits.maxLiveEventHosts) hosts are inside already")
                    }
                    host = LiveEventHost(hostId: "h" + RandomHex.string(bytes: 6), userId: userId, state: .connected,
                                         isAudioOn: args.turnAudioOn ?? true, isVideoOn: record.event.type == .video && (args.turnVideoOn ?? true),
                                         enteredAt: Date.wireNow)
                    record.event.hosts.append(host)
                    type = LiveEventEventType.hostEntered
                }
                try await transaction.save(record)
                _ = try await transaction.append([try Self.event(type, record.event, LiveEventEvent(type: type, liveEvent: record.event, host: host, actorId: userId))])
            }
        }
        return try await entry(id)
    }

    /// Exits as a host.
    package func exitAsHost(_ id: String, caller: Caller) async throws {
        let userId = caller.userId
        let key = Self.hostKey(userId)
        try await events.transact { transaction in
            try await transaction.removePresence(stream: StreamKind.live.stream(id), clientId: key)
            try await Self.removeHost(id, userId: userId, required: true, in: transaction)
        }
        caller.session.releaseRoster(stream: StreamKind.live.stream(id), key: key)
        await media.revoke(stream: StreamKind.live.stream(id), clientId: caller.clientId, publish: true, receive: true, reason: "hostExited")
    }

    /// Removes a host from the event and announces it, in `transaction`; `required` makes a
    /// missing host an error.
    private static func removeHost(_ id: String, userId: String, required: Bool, in transaction: any StorageTransaction) async throws {
        var record = try await load(transaction, id)
        guard let index = record.event.hosts.firstIndex(where: { $0.userId == userId }) else {
            if required { throw GreenroomError(.actionNotAllowedInCurrentState, "\(userId) is not inside live event \(id) as a host") }
            return
        }
        let host = record.event.hosts.remove(at: index)
        try await transaction.save(record)
        _ = try await transaction.append([try event(LiveEventEventType.hostExited, record.event,
                                                    LiveEventEvent(type: "", liveEvent: record.event, host: host, actorId: userId))])
    }

    /// Turns an entered host's microphone or camera on or off; each change is announced.
    package func setHostMedia(_ args: LiveEventMediaArgs, userId: String) async throws -> LiveEventHost {
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
    package func connectionClosed(_ entry: PresenceEntry) async throws {
        let id = try Self.eventId(of: entry.stream)
        let roster = roster
        guard entry.data["role"]?.stringValue == Self.hostRole else {
            try await events.transact { transaction in
                // The record first, as entering locks it before the entry.
                var record = try await Self.load(transaction, id)
                guard try await roster.stillHeld(entry, in: transaction) != nil,
                      try await transaction.removePresence(stream: entry.stream, clientId: entry.clientId) != nil else { return }
                try await Self.count(-1, into: &record, in: transaction)
                try await transaction.save(record)
            }
            markPending(id)
            return
        }
        let grace = grace
        try await events.transact { transaction in
            guard let current = try await roster.stillHeld(entry, in: transaction) else { return }
            try await roster.detach(current, grace: grace, in: transaction)
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

    /// An entry expired: a participant is out (counted now, announced by the next flush); a
    /// host that did not come back (or whose node died) has exited.
    package func expired(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {
        let id = try Self.eventId(of: entry.stream)
        switch entry.data["role"]?.stringValue {
        case Self.hostRole:
            try await Self.removeHost(id, userId: entry.userId, required: false, in: transaction)
        case Self.participantRole:
            guard var record = try await transaction.load(LiveEventRecord.self, id: id) else { return }
            try await Self.count(-1, into: &record, in: transaction)
            try await transaction.save(record)
        default:
            break
        }
    }

    /// The counts change: announced by the next flush.
    package func didExpire(_ entry: PresenceEntry) {
        if let id = try? Self.eventId(of: entry.stream) { markPending(id) }
    }
}
