import Foundation
import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import GreenroomStorage

extension MeetingService: RosterOwner {
    /// Joins (creating the meeting on first join). A token with only `ask_join` waits for a
    /// moderator; the same participant id joining again takes over from its older connection.
    /// The participant limit is checked in the transaction that stores the entry, with the
    /// meeting's stream locked, so concurrent joins on any node cannot exceed it.
    package func join(_ args: MeetingJoinArgs, caller: Caller) async throws -> MeetingJoinResult {
        let identity = caller.identity
        let clientId = caller.clientId
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

        let meetingId = args.meetingId
        let stream = Self.stream(meetingId)
        let key = Self.key(args.participantId)
        let media = args.mode == .SEND_AND_RECV
        let participant = MeetingParticipant(
            participantId: args.participantId, userId: identity.userId, name: name, mode: args.mode, metaData: args.metaData ?? [:],
            micOn: media && (args.micEnabled ?? false), webcamOn: media && (args.webcamEnabled ?? false),
            isModerator: isModerator, state: .joined, joinedAt: Date.wireNow)
        let entry = roster.entry(caller, stream: stream, key: key,
                                 data: ["role": .string(Self.role), "participant": try RawJSON(encoding: participant)])
        let limit = participantLimit
        try await roster.holding(caller, stream: stream, key: key) {
            try await events.transact { transaction in
                try await transaction.lock(stream: stream)
                var record = try await Self.load(transaction, meetingId)
                guard record.meeting.state == .active else {
                    throw GreenroomError(.meetingEnded, "meeting \(meetingId) has ended")
                }
                let existing = try await transaction.presenceEntry(stream: stream, clientId: key)
                if let existing, existing.userId != identity.userId {
                    throw GreenroomError(.participantIdTaken, "participant \(args.participantId) belongs to another user")
                }
                if existing == nil {
                    let count = if let kept = record.count { kept } else { try await transaction.presenceCount(stream: stream, clientIdPrefix: Self.key("")) }
                    guard count < limit else { throw GreenroomError(.maxParticipantsReached, "meeting \(meetingId) has \(limit) participants") }
                }
                try await transaction.putPresence(entry)
                try await Self.keep(&record, delta: existing == nil ? 1 : 0, participant, in: transaction)
                try await transaction.save(record)
                let audience = Self.audience(of: participant.participantId, userId: participant.userId, in: record)
                let event: MeetingEvent
                if let existing, !existing.node.isEmpty, let old = existing.data["connection"]?.stringValue, old != clientId {
                    event = MeetingEvent(type: MeetingEventType.participantJoined, participant: participant, replacedClientId: old)
                } else if existing != nil {
                    event = MeetingEvent(type: MeetingEventType.participantStateChanged, participant: participant)
                } else {
                    event = MeetingEvent(type: MeetingEventType.participantJoined, participant: participant)
                }
                _ = try await transaction.append([try Self.event(meetingId, event, audience: audience)])
            }
        }
        markPending(meetingId)
        let info = try await storage.streamInfo(stream)
        return MeetingJoinResult(status: .joined, meeting: try await current(meetingId, for: identity, own: [participant]),
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
            let moderators = Array(Set(try await Self.participants(args.meetingId, in: transaction)
                .filter(\.participant.isModerator).map(\.participant.userId))).sorted()
            _ = try await transaction.append([try Self.event(args.meetingId, MeetingEvent(
                type: MeetingEventType.entryRequested, participantId: args.participantId, reason: args.name, audience: moderators))])
            return .asked
        }
        switch decision {
        case .allowed: return true
        case .denied: throw GreenroomError(.entryDenied, "a moderator did not let \(args.participantId) in")
        case .waiting: return false
        case .asked:
            return false
        }
    }

    /// A moderator lets a waiting participant in, or not; the participant hears it on its own stream.
    package func respondEntry(_ args: MeetingEntryArgs, identity: Identity) async throws {
        try Self.requireModerator(identity, to: "admit participants")
        try await events.transact { transaction in
            guard var asked = try await transaction.load(MeetingAdmissionRecord.self, scope: args.meetingId, id: args.participantId),
                  asked.allowed == nil else {
                throw GreenroomError(.meetingNotFound, "\(args.participantId) is not waiting to join meeting \(args.meetingId)")
            }
            asked.allowed = args.allow
            try await transaction.save(asked)
            var event = MeetingEvent(type: MeetingEventType.entryResponded, participantId: args.participantId, reason: args.allow ? "allowed" : "denied")
            event.audience = [asked.userId]
            var answer = EventAppend(stream: StreamName.user(asked.userId), type: event.type,
                                     data: try RawJSON(encoding: event).merging(["meetingId": .string(args.meetingId)]))
            answer.audience = [asked.userId]
            _ = try await transaction.append([answer])
        }
    }

    /// Leaves the meeting; the connection stops following it.
    package func leave(_ meetingId: String, caller: Caller) async throws {
        let stream = Self.stream(meetingId)
        let key = try await events.transact { transaction in
            let (entry, participant) = try await mine(meetingId, caller, in: transaction)
            try await transaction.removePresence(stream: stream, clientId: entry.clientId)
            try await Self.removed(participant, meetingId: meetingId, reason: "left", in: transaction)
            return entry.clientId
        }
        markPending(meetingId)
        caller.session.releaseRoster(stream: stream, key: key)
        caller.session.endSubscription(stream)
        await media.leave(MediaPlane.MemberKey(clientId: caller.clientId, stream: stream), reason: "left")
    }

    /// A participant whose connection closed is `reconnecting` for the grace period.
    package func connectionClosed(_ entry: PresenceEntry) async throws {
        let meetingId = try Self.meetingId(of: entry.stream)
        let grace = grace
        let roster = roster
        try await events.transact { transaction in
            // Still held by the connection that closed (not taken over since, nor gone)?
            guard let current = try await roster.stillHeld(entry, in: transaction),
                  var participant = try current.data["participant"]?.decode(as: MeetingParticipant.self) else { return }
            participant.state = .reconnecting
            var detached = current
            detached.data = current.data.merging(["participant": try RawJSON(encoding: participant)])
            try await roster.detach(detached, grace: grace, in: transaction)
            let record = try await Self.load(transaction, meetingId)
            _ = try await transaction.append([try Self.event(meetingId,
                MeetingEvent(type: MeetingEventType.participantStateChanged, participant: participant),
                audience: Self.audience(of: participant.participantId, userId: participant.userId, in: record))])
        }
    }

    /// A participant that did not come back (or whose node died) has left.
    package func expired(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {
        try await gone(entry, reason: "timeout", in: transaction)
    }

    /// A participant whose user was deleted has left, with the reason `deleted`.
    package func userDeleted(_ entry: PresenceEntry, in transaction: any StorageTransaction) async throws {
        try await gone(entry, reason: "deleted", in: transaction)
    }

    /// The participant of an entry removed in `transaction` has left, for `reason`.
    private func gone(_ entry: PresenceEntry, reason: String, in transaction: any StorageTransaction) async throws {
        guard let participant = try entry.data["participant"]?.decode(as: MeetingParticipant.self) else { return }
        let meetingId = try Self.meetingId(of: entry.stream)
        try await Self.removed(participant, meetingId: meetingId, reason: reason, in: transaction)
        markPending(meetingId)
    }

    /// A participant's entry was removed in `transaction`: the record's count and stage and
    /// the user's member record follow, and `meeting.participantLeft` goes to whoever heard of it.
    package static func removed(_ participant: MeetingParticipant, meetingId: String, reason: String, in transaction: any StorageTransaction) async throws {
        var record = try await load(transaction, meetingId)
        let audience = audience(of: participant.participantId, userId: participant.userId, in: record)
        try await keep(&record, delta: -1, participant, in: transaction)
        try await transaction.save(record)
        _ = try await transaction.append([try event(meetingId,
            MeetingEvent(type: MeetingEventType.participantLeft, participantId: participant.participantId, reason: reason), audience: audience)])
    }

    // MARK: Modes, media and pins

    /// Changes the caller's own mode; leaving `SEND_AND_RECV` turns its media off and removes
    /// its publisher from the media room (`SIGNALLING_ONLY`: its receiving session too).
    package func changeMode(_ args: MeetingModeArgs, caller: Caller) async throws -> MeetingParticipant {
        let meetingId = args.meetingId
        let participant = try await events.transact { transaction in
            let (entry, stored) = try await mine(meetingId, caller, in: transaction)
            var participant = stored
            guard participant.mode != args.mode else {
                throw GreenroomError(.modeUnchanged, "\(participant.participantId) is in \(args.mode.rawValue) already")
            }
            participant.mode = args.mode
            var record = try await Self.load(transaction, meetingId)
            let wasOnStage = Self.audience(of: participant.participantId, userId: participant.userId, in: record) == nil
            var events: [MeetingEvent] = []
            if args.mode != .SEND_AND_RECV {
                if participant.micOn { events.append(MeetingEvent(type: MeetingEventType.streamDisabled, participantId: participant.participantId, kind: .audio)) }
                if participant.webcamOn { events.append(MeetingEvent(type: MeetingEventType.streamDisabled, participantId: participant.participantId, kind: .video)) }
                participant.micOn = false
                participant.webcamOn = false
            }
            try await Self.store(participant, in: entry, transaction)
            events.append(MeetingEvent(type: MeetingEventType.modeChanged, participantId: participant.participantId, mode: args.mode))
            try await Self.keep(&record, delta: 0, participant, in: transaction)
            try await transaction.save(record)
            let audience = Self.audience(of: participant.participantId, userId: participant.userId, in: record)
            // Come on stage: everyone hears of it now, and will of its changes until it leaves.
            if !wasOnStage, audience == nil {
                events.insert(MeetingEvent(type: MeetingEventType.participantStateChanged, participant: participant), at: 0)
            }
            _ = try await transaction.append(try events.map { try Self.event(meetingId, $0, audience: audience) })
            return participant
        }
        if args.mode != .SEND_AND_RECV {
            await media.revoke(stream: Self.stream(args.meetingId), clientId: caller.clientId,
                               publish: true, receive: args.mode == .SIGNALLING_ONLY, reason: "modeChanged")
        }
        return participant
    }

    /// Turns the caller's microphone or camera on or off; only `SEND_AND_RECV` may turn them on.
    package func setMedia(_ args: MeetingMediaArgs, caller: Caller) async throws -> MeetingParticipant {
        try await change(args.meetingId, caller) { transaction, entry, participant in
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
            guard !changes.isEmpty else { return [] }
            try await Self.store(participant, in: entry, transaction)
            return changes.map { kind, on in
                MeetingEvent(type: on ? MeetingEventType.streamEnabled : MeetingEventType.streamDisabled, participantId: participant.participantId, kind: kind)
            }
        }.participant
    }

    /// Pins (or unpins) what `pinType` covers of a participant, for the whole meeting.
    package func pin(_ args: MeetingPinArgs, on: Bool, caller: Caller) async throws -> PinState {
        _ = try await mine(args.meetingId, caller)
        let stream = Self.stream(args.meetingId)
        return try await events.transact { transaction in
            guard try await transaction.presenceEntry(stream: stream, clientId: Self.key(args.participantId)) != nil else {
                throw GreenroomError(.meetingNotFound, "no participant \(args.participantId) in meeting \(args.meetingId)")
            }
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
    package func merging(_ other: [String: RawJSON]) -> RawJSON {
        var values = dictionaryValue ?? [:]
        values.merge(other) { _, new in new }
        return .dictionary(values)
    }
}
