import Foundation
import GreenroomProtocol

extension MeetingService: RosterOwner {
    /// Joins (creating the meeting on first join). A token with only `ask_join` waits for a
    /// moderator; the same participant id joining again takes over from its older connection.
    func join(_ args: MeetingJoinArgs, connection: ClientConnection) async throws -> MeetingJoinResult {
        let identity = connection.identity
        let clientId = roster.clientId(connection)
        guard Limits.isValidId(args.participantId) else {
            throw GreenroomError(.invalidParameterValue, "participantId must be 1–128 characters of letters, digits and _-.@")
        }
        let name = args.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...Limits.maxNicknameLength).contains(name.count) else {
            throw GreenroomError(.invalidParameterValue, "participantName must be 1–\(Limits.maxNicknameLength) characters")
        }
        let metaBytes = try RawJSON.dictionary(args.metaData ?? [:]).jsonData().count
        guard metaBytes <= Limits.maxExtraDataBytes else {
            throw GreenroomError(.payloadTooLarge, "metaData is \(metaBytes) bytes; the limit is \(Limits.maxExtraDataBytes)")
        }
        let meeting = try await create(args.meetingId, by: identity.userId)
        guard meeting.state == .active else { throw GreenroomError(.meetingEnded, "meeting \(args.meetingId) has ended") }
        let isModerator = identity.grants.contains(MeetingGrant.allowMod)
        let mustAsk = identity.grants.contains(MeetingGrant.askJoin) && !isModerator && !identity.grants.contains(MeetingGrant.allowJoin)
        if mustAsk, try await !admitted(args, userId: identity.userId) {
            return MeetingJoinResult(status: .waiting, meeting: nil, position: nil, clientId: clientId)
        }

        let stream = Self.stream(args.meetingId)
        let key = Self.key(args.participantId)
        let existing = try await storage.presenceEntry(stream: stream, clientId: key)
        if let existing, existing.userId != identity.userId {
            throw GreenroomError(.participantIdTaken, "participant \(args.participantId) belongs to another user")
        }
        if existing == nil, try await storage.presenceCount(stream: stream, clientIdPrefix: Self.key("")) >= participantLimit {
            throw GreenroomError(.maxParticipantsReached, "meeting \(args.meetingId) has \(participantLimit) participants")
        }
        let media = args.mode == .SEND_AND_RECV
        let participant = MeetingParticipant(
            participantId: args.participantId, userId: identity.userId, name: name, mode: args.mode, metaData: args.metaData ?? [:],
            micOn: media && (args.micEnabled ?? false), webcamOn: media && (args.webcamEnabled ?? false),
            isModerator: isModerator, state: .joined, joinedAt: Date.wireNow)
        try await roster.put(connection, stream: stream, key: key, userId: identity.userId,
                             data: ["role": .string(Self.role), "participant": try RawJSON(encoding: participant)])
        if let existing, !existing.node.isEmpty, let old = existing.data["connection"]?.stringValue, old != clientId {
            try await announce(args.meetingId, MeetingEvent(type: MeetingEventType.participantJoined, participant: participant, replacedClientId: old))
        } else if existing != nil {
            try await announce(args.meetingId, MeetingEvent(type: MeetingEventType.participantStateChanged, participant: participant))
        } else {
            try await announce(args.meetingId, MeetingEvent(type: MeetingEventType.participantJoined, participant: participant))
        }
        let info = try await storage.streamInfo(stream)
        return MeetingJoinResult(status: .joined, meeting: try await current(args.meetingId),
                                 position: StreamPosition(offset: info.head, epoch: info.epoch), clientId: clientId)
    }

    /// Whether an `ask_join` participant was let in; asks the moderators the first time.
    private func admitted(_ args: MeetingJoinArgs, userId: String) async throws -> Bool {
        enum Decision: Sendable { case allowed, denied, waiting, asked }
        let decision = try await events.transact { transaction -> Decision in
            if let asked = try await transaction.load(MeetingAdmissionRecord.self, scope: args.meetingId, id: args.participantId),
               asked.userId == userId {
                guard let allowed = asked.allowed else { return .waiting }
                try await transaction.remove(MeetingAdmissionRecord.self, scope: args.meetingId, id: args.participantId)
                return allowed ? .allowed : .denied
            }
            try await transaction.save(MeetingAdmissionRecord(meetingId: args.meetingId, participantId: args.participantId, userId: userId, name: args.name))
            return .asked
        }
        switch decision {
        case .allowed: return true
        case .denied: throw GreenroomError(.entryDenied, "a moderator did not let \(args.participantId) in")
        case .waiting: return false
        case .asked:
            let moderators = Array(Set(try await participants(args.meetingId).filter(\.participant.isModerator).map(\.participant.userId))).sorted()
            try await announce(args.meetingId, MeetingEvent(
                type: MeetingEventType.entryRequested, participantId: args.participantId, reason: args.name, audience: moderators))
            return false
        }
    }

    /// A moderator lets a waiting participant in, or not; the participant hears it on its own stream.
    func respondEntry(_ args: MeetingEntryArgs, identity: Identity) async throws {
        guard identity.grants.contains(MeetingGrant.allowMod) else {
            throw GreenroomError(.moderatorRequired, "only a moderator (allow_mod) may admit participants")
        }
        try await events.transact { transaction in
            guard var asked = try await transaction.load(MeetingAdmissionRecord.self, scope: args.meetingId, id: args.participantId),
                  asked.allowed == nil else {
                throw GreenroomError(.meetingNotFound, "\(args.participantId) is not waiting to join meeting \(args.meetingId)")
            }
            asked.allowed = args.allow
            try await transaction.save(asked)
            var event = MeetingEvent(type: MeetingEventType.entryResponded, participantId: args.participantId, reason: args.allow ? "allowed" : "denied")
            event.audience = [asked.userId]
            _ = try await transaction.append([EventAppend(
                stream: StreamName.user(asked.userId), type: event.type,
                data: try RawJSON(encoding: event).merging(["meetingId": .string(args.meetingId)]))])
        }
    }

    /// Leaves the meeting; the connection stops following it.
    func leave(_ meetingId: String, connection: ClientConnection) async throws {
        let (entry, participant) = try await mine(meetingId, connection)
        try await roster.remove(connection, stream: entry.stream, key: entry.clientId)
        hub.remove(connection, from: entry.stream)
        connection.endSubscription(entry.stream)
        try await announce(meetingId, MeetingEvent(type: MeetingEventType.participantLeft, participantId: participant.participantId, reason: "left"))
    }

    /// A participant whose connection closed is `reconnecting` for the grace period.
    func connectionClosed(_ entry: PresenceEntry, connection: ClientConnection) async throws {
        guard var participant = try entry.data["participant"]?.decode(as: MeetingParticipant.self) else { return }
        participant.state = .reconnecting
        var detached = entry
        var data = entry.data.dictionaryValue ?? [:]
        data["participant"] = try RawJSON(encoding: participant)
        detached.data = .dictionary(data)
        try await roster.detach(detached, grace: grace)
        try await announce(String(entry.stream.dropFirst("meeting:".count)),
                           MeetingEvent(type: MeetingEventType.participantStateChanged, participant: participant))
    }

    /// A participant that did not come back (or whose node died) has left.
    func expired(_ entry: PresenceEntry) async throws {
        guard let participant = try entry.data["participant"]?.decode(as: MeetingParticipant.self) else { return }
        try await announce(String(entry.stream.dropFirst("meeting:".count)),
                           MeetingEvent(type: MeetingEventType.participantLeft, participantId: participant.participantId, reason: "timeout"))
    }

    // MARK: Modes, media and pins

    /// Changes the caller's own mode; leaving `SEND_AND_RECV` turns its media off.
    func changeMode(_ args: MeetingModeArgs, connection: ClientConnection) async throws -> MeetingParticipant {
        let (entry, current) = try await mine(args.meetingId, connection)
        var participant = current
        guard participant.mode != args.mode else {
            throw GreenroomError(.modeUnchanged, "\(participant.participantId) is in \(args.mode.rawValue) already")
        }
        participant.mode = args.mode
        var disabled: [MediaKind] = []
        if args.mode != .SEND_AND_RECV {
            if participant.micOn { disabled.append(.audio) }
            if participant.webcamOn { disabled.append(.video) }
            participant.micOn = false
            participant.webcamOn = false
        }
        try await store(participant, in: entry)
        for kind in disabled {
            try await announce(args.meetingId, MeetingEvent(type: MeetingEventType.streamDisabled, participantId: participant.participantId, kind: kind))
        }
        try await announce(args.meetingId, MeetingEvent(type: MeetingEventType.modeChanged, participantId: participant.participantId, mode: args.mode))
        return participant
    }

    /// Turns the caller's microphone or camera on or off; only `SEND_AND_RECV` may turn them on.
    func setMedia(_ args: MeetingMediaArgs, connection: ClientConnection) async throws -> MeetingParticipant {
        let (entry, current) = try await mine(args.meetingId, connection)
        var participant = current
        if args.micOn == true || args.webcamOn == true, participant.mode != .SEND_AND_RECV {
            throw GreenroomError(.mediaNotAllowedInMode, "a \(participant.mode.rawValue) participant may not send media")
        }
        var changes: [(MediaKind, Bool)] = []
        if let on = args.micOn, on != participant.micOn {
            participant.micOn = on
            changes.append((.audio, on))
        }
        if let on = args.webcamOn, on != participant.webcamOn {
            participant.webcamOn = on
            changes.append((.video, on))
        }
        guard !changes.isEmpty else { return participant }
        try await store(participant, in: entry)
        for (kind, on) in changes {
            try await announce(args.meetingId, MeetingEvent(
                type: on ? MeetingEventType.streamEnabled : MeetingEventType.streamDisabled, participantId: participant.participantId, kind: kind))
        }
        return participant
    }

    /// Pins (or unpins) what `pinType` covers of a participant, for the whole meeting.
    func pin(_ args: MeetingPinArgs, on: Bool, connection: ClientConnection) async throws -> PinState {
        _ = try await mine(args.meetingId, connection)
        guard try await storage.presenceEntry(stream: Self.stream(args.meetingId), clientId: Self.key(args.participantId)) != nil else {
            throw GreenroomError(.meetingNotFound, "no participant \(args.participantId) in meeting \(args.meetingId)")
        }
        return try await events.transact { transaction in
            var record = try await Self.load(transaction, args.meetingId)
            var state = record.meeting.pins[args.participantId] ?? PinState()
            let before = state
            state.apply(args.pinType, on: on)
            guard state != before else { return state }
            record.meeting.pins[args.participantId] = state.isPinned ? state : nil
            try await transaction.save(record)
            _ = try await transaction.append([try Self.event(args.meetingId, MeetingEvent(
                type: MeetingEventType.pinStateChanged, participantId: args.participantId, pinState: state))])
            return state
        }
    }
}

extension RawJSON {
    /// This dictionary with `other`'s keys set.
    func merging(_ other: [String: RawJSON]) -> RawJSON {
        var values = dictionaryValue ?? [:]
        values.merge(other) { _, new in new }
        return .dictionary(values)
    }
}
