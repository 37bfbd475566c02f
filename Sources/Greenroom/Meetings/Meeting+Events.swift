import Foundation

extension Meeting {
    /// How often a participant waiting for a moderator asks again.
    static let admissionPoll: Duration = .milliseconds(300)

    /// Joins (waiting for admission when needed), adopts the meeting's state and follows
    /// its stream from the position that state includes.
    func joinOnce(resuming: Bool) async throws {
        var result: MeetingJoinResult
        var announcedWait = false
        while true {
            let args = joinArgs.withLock { $0 }
            do {
                result = try await client.send(MeetingOperation.join, args: args)
            } catch let error as GreenroomError where announcedWait && error.is(.entryDenied) {
                await notify(.entryResponded(participantId: args.participantId, decision: "denied"))
                throw error
            }
            if result.status == .joined {
                // Asked and let in: a moderator's answer, as the server's `meeting.entryResponded` says.
                if announcedWait { await notify(.entryResponded(participantId: args.participantId, decision: "allowed")) }
                break
            }
            if !announcedWait {
                announcedWait = true
                await setMeetingState(.CONNECTING)
            }
            try await Task.sleep(for: Self.admissionPoll)
        }
        guard let meeting = result.meeting, let position = result.position else {
            throw GreenroomError(.internalError, "the join reply has no meeting")
        }
        adopt(meeting, clientId: result.clientId)
        await client.keepJoined(id, meeting)
        let stream = meeting.stream
        let following = state.withLock { $0.pump != nil } && client.hasSubscription(stream)
        if !following {
            let subscription = try await client.subscribe(to: stream, since: position)
            follow(subscription)
        }
        state.withLock { $0.joined = true }
        await setMeetingState(.CONNECTED)
        if resuming { await notify(.meetingStateChanged(.CONNECTED)) }
    }

    /// Takes in the meeting's participants and pins.
    private func adopt(_ meeting: MeetingData, clientId: String?) {
        let me = joinArgs.withLock { $0.participantId }
        let local = localParticipant
        state.withLock { state in
            if let clientId { state.clientId = clientId }
            var remote: [String: Participant] = [:]
            var order: [String] = []
            for data in meeting.participants {
                if data.participantId == me {
                    local.update { $0 = data }
                    continue
                }
                let participant = state.remote[data.participantId] ?? Participant(data, isLocal: false, meeting: self)
                participant.update { $0 = data }
                remote[data.participantId] = participant
                order.append(data.participantId)
            }
            state.remote = remote
            state.order = order
        }
        for participant in participants { participant.setPinState(meeting.pins[participant.id] ?? PinState()) }
        state.withLock { state in
            state.livestream = meeting.livestream
            state.recording = meeting.recording
            state.participantCount = meeting.participantCount ?? meeting.participants.count
        }
    }

    /// Reads the participants again after the local participant's mode changed: on stage
    /// (`SEND_AND_RECV`) the server lists everyone, off it only those on stage. Those newly
    /// listed are told as joined, those no longer listed as left.
    private func reread() async {
        guard let meeting = try? await client.send(MeetingOperation.get, args: MeetingRef(meetingId: id)) else { return }
        let before = state.withLock { $0.remote }
        adopt(meeting, clientId: nil)
        let after = state.withLock { state in state.order.compactMap { state.remote[$0] } }
        for participant in after where before[participant.id] == nil { await notify(.participantJoined(participant)) }
        let listed = Set(after.map(\.id))
        for (id, participant) in before where !listed.contains(id) { await notify(.participantLeft(participant)) }
    }

    /// Follows the meeting's stream. A gap it could not replay needs nothing more here: after
    /// a reconnect the meeting joins again, which reads its participants anew.
    private func follow(_ subscription: StreamSubscription) {
        let pump = EventPump(following: subscription, for: self) { meeting, event in
            if event.type == MediaEventType.talking {
                if let talking = try? event.data.decode(as: MediaTalkingEvent.self) { await meeting.speakerChanged(talking) }
            } else if let media = MediaSession.mediaEvent(event) {
                await meeting.state.withLock({ $0.media })?.handle(media)
            } else if let decoded = try? event.data.decode(as: MeetingEvent.self) {
                await meeting.apply(decoded)
            }
        } signal: { meeting, signal in
            await meeting.connectionQualitySignal(signal)
        }
        let earlier = state.withLock { state in
            defer { state.pump = pump }
            return state.pump
        }
        earlier?.cancel()
    }

    /// Stops following after leaving (or being put out).
    func stopFollowing() async {
        let pump = state.withLock { state in
            defer {
                state.joined = false
                state.pump = nil
            }
            return state.pump
        }
        await pump?.stop(client)
    }

    /// After a reconnect, joins again with the same participant id (within the grace
    /// period the others see it come back, not leave and join).
    func startWatchingConnection() {
        guard state.withLock({ $0.watcher == nil }) else { return }
        let watcher = ReconnectWatcher(client, for: self, active: { $0.state.withLock { $0.joined } }, dropped: { meeting in
            await meeting.setMeetingState(.RECONNECTING)
        }, back: { meeting in
            do {
                try await meeting.joinOnce(resuming: false)
                // The old connection's media sessions ended with it: start over.
                await meeting.state.withLock({ $0.media })?.start()
            } catch {
                await meeting.stopFollowing()
                await meeting.setMeetingState(.CLOSED)
                await meeting.report(error)
                await meeting.notify(.meetingLeft)
            }
        })
        state.withLock { $0.watcher = watcher }
    }

    /// Updates participants from one of the meeting's events, then tells the listeners.
    func apply(_ event: MeetingEvent) async {
        let me = joinArgs.withLock { $0.participantId }
        switch event.type {
        case MeetingEventType.participantJoined, MeetingEventType.participantStateChanged:
            guard let data = event.participant else { return }
            if data.participantId == me {
                if let replaced = event.replacedClientId, replaced == state.withLock({ $0.clientId }) {
                    await putOut(GreenroomError(.participantIdTaken, "\(me) joined again from another connection"))
                } else {
                    localParticipant.update { $0 = data }
                }
                return
            }
            let (participant, fresh) = state.withLock { state -> (Participant, Bool) in
                if let known = state.remote[data.participantId] {
                    known.update { $0 = data }
                    return (known, false)
                }
                let created = Participant(data, isLocal: false, meeting: self)
                state.remote[data.participantId] = created
                state.order.append(data.participantId)
                return (created, true)
            }
            if fresh { await notify(.participantJoined(participant)) }
        case MeetingEventType.participantLeft:
            guard let id = event.participantId, id != me else { return }
            let gone = state.withLock { state -> Participant? in
                state.order.removeAll { $0 == id }
                return state.remote.removeValue(forKey: id)
            }
            if let gone { await notify(.participantLeft(gone)) }
        case MeetingEventType.modeChanged:
            guard let id = event.participantId, let mode = event.mode else { return }
            participant(id)?.update { $0.mode = mode }
            if id == me {
                await state.withLock({ $0.media })?.modeChanged(mode)
                await reread()
            }
            await notify(.participantModeChanged(participantId: id, mode: mode))
        case MeetingEventType.streamEnabled, MeetingEventType.streamDisabled:
            guard let id = event.participantId, let kind = event.kind else { return }
            await participant(id)?.streamChanged(kind, on: event.type == MeetingEventType.streamEnabled)
        case MeetingEventType.participantCountChanged:
            guard let count = event.count else { return }
            state.withLock { $0.participantCount = count }
            await notify(.participantCountChanged(count))
        case MeetingEventType.pinStateChanged:
            guard let id = event.participantId, let pins = event.pinState else { return }
            participant(id)?.setPinState(pins)
            let type: PinType? = pins.cam && pins.share ? .SHARE_AND_CAM : pins.cam ? .CAM : pins.share ? .SHARE : nil
            await notify(.pinStateChanged(participantId: id, pinType: type))
        case MeetingEventType.entryRequested:
            guard let id = event.participantId else { return }
            let name = event.reason ?? id
            await notify(.entryRequested(participantId: id, name: name))
        case MeetingEventType.pubsubMessage:
            if let message = event.message { await pubsub.deliver(message) }
        case MeetingEventType.livestreamStateChanged:
            guard let info = event.livestream else { return }
            let changed = state.withLock { state -> Bool in
                defer { state.livestream = info }
                return state.livestream?.status != info.status
            }
            if changed { await notify(.livestreamStateChanged(info.status)) }
        case MeetingEventType.recordingStateChanged:
            guard let info = event.recording else { return }
            let changed = state.withLock { state -> Bool in
                defer { state.recording = info }
                return state.recording?.status != info.status
            }
            if changed { await notify(.recordingStateChanged(info.status)) }
        case MeetingEventType.ended:
            // The room went with the meeting: the engine's connections and tracks stop too.
            let media = state.withLock { state -> MediaSession? in
                defer { state.media = nil }
                return state.media
            }
            await media?.roomEnded()
            await stopFollowing()
            await client.keepJoined(id, nil)
            await setMeetingState(.CLOSED)
            await notify(.meetingLeft)
        default:
            break
        }
    }

    /// The media server heard someone start or stop talking: `onSpeakerChanged` names the
    /// one talking now, or `nil` when nobody does.
    func speakerChanged(_ event: MediaTalkingEvent) async {
        let speaker = state.withLock { state -> String?? in
            if event.talking {
                state.talking.removeAll { $0 == event.participantId }
                state.talking.append(event.participantId)
            } else {
                state.talking.removeAll { $0 == event.participantId }
            }
            let now = state.talking.last
            guard now != state.speaker else { return .none }
            state.speaker = now
            return .some(now)
        }
        guard let speaker else { return }
        await notify(.speakerChanged(participantId: speaker))
    }

    /// A participant's connection quality changed: kept on the participant, and told.
    func connectionQualitySignal(_ signal: StreamSignal) async {
        guard signal.type == MediaEventType.connectionQuality,
              let event = try? signal.data.decode(as: MediaConnectionQualityEvent.self),
              let participant = participant(event.participantId) else { return }
        guard participant.setConnectionQuality(event.quality) else { return }
        await notify(.connectionQualityChanged(participantId: event.participantId, quality: event.quality))
    }

    private func participant(_ id: String) -> Participant? {
        if id == joinArgs.withLock({ $0.participantId }) { return localParticipant }
        return state.withLock { $0.remote[id] }
    }

    private func putOut(_ error: GreenroomError) async {
        await stopFollowing()
        await setMeetingState(.CLOSED)
        await notify(.error(error))
        await notify(.meetingLeft)
    }
}
