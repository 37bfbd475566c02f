import Foundation
import GreenroomProtocol

/// A stage meeting, from the local participant's side: its participants, modes, media
/// state and pins kept current with the meeting's events, and pub/sub.
///
/// ```swift
/// let meeting = client.initMeeting(meetingId: "stage", participantId: "host-1", participantName: "Host",
///                                  micEnabled: true, webcamEnabled: true, mode: .SEND_AND_RECV)
/// meeting.addEventListener(self)
/// try await meeting.join()
/// try await meeting.pubsub.publish(topic: "HOSTREQUESTED", message: "Join the stage?", options: [:], payload: ["receiverId": "viewer-1"])
/// ```
public final class Meeting: Sendable {
    struct State {
        var local: Participant?
        var remote: [String: Participant] = [:]
        var order: [String] = []
        var meetingState: MeetingState?
        var clientId: String?
        var pump: EventPump?
        var watcher: ReconnectWatcher?
        var joined = false
        /// Who talks, by the media server's audio levels, the latest to start last.
        var talking: [String] = []
        /// The speaker last told to listeners.
        var speaker: String?
        /// Audio and video, once attached.
        var media: MediaSession?
        /// The livestream, as last announced.
        var livestream: LivestreamInfo?
        /// The recording, as last announced.
        var recording: RecordingInfo?
        /// The participant count, as last given.
        var participantCount: Int?
        var listeners: [ObjectIdentifier: WeakListener] = [:]
    }

    /// The meeting's id.
    public let id: String
    /// The client it acts through.
    public let client: GreenroomClient
    /// What the local participant joins with.
    let joinArgs: Locked<MeetingJoinArgs>
    /// Publishing and subscribing to topics.
    public let pubsub: PubSub
    let state = Locked(State())
    /// The streams ``events`` handed out.
    let changes = ChangeStreams<MeetingChange>()

    init(client: GreenroomClient, args: MeetingJoinArgs) {
        self.id = args.meetingId
        self.client = client
        self.joinArgs = Locked(args)
        self.pubsub = PubSub()
        pubsub.meeting = self
    }

    deinit {
        let (pump, watcher) = state.withLock { ($0.pump, $0.watcher) }
        pump?.cancel()
        watcher?.cancel()
        changes.finish()
    }

    /// The local participant (its state before joining is what `initMeeting` was given).
    public var localParticipant: Participant {
        if let local = state.withLock({ $0.local }) { return local }
        let args = joinArgs.withLock { $0 }
        let local = Participant(MeetingParticipant(
            participantId: args.participantId, userId: client.currentUserId ?? "", name: args.name, mode: args.mode,
            metaData: args.metaData ?? [:], micOn: args.micEnabled ?? false, webcamOn: args.webcamEnabled ?? false,
            joinedAt: Date()), isLocal: true, meeting: self)
        return state.withLock { state in
            if let existing = state.local { return existing }
            state.local = local
            return local
        }
    }

    /// The meeting's participants the server tells this one of: the local participant first,
    /// then the others by join time. A moderator or a `SEND_AND_RECV` participant has
    /// everyone; a `RECV_ONLY` or `SIGNALLING_ONLY` participant has those on stage (who send
    /// media or moderate) and itself, not the thousands of other viewers of a big meeting:
    /// ``participantCount`` counts everyone.
    public var participants: [Participant] {
        let local = localParticipant
        return [local] + state.withLock { state in state.order.compactMap { state.remote[$0] } }
    }

    /// How many participants the meeting has, listed in ``participants`` or not; kept current
    /// by `meeting.participantCountChanged` (at most once a second). Before joining, `0`.
    public var participantCount: Int { state.withLock { $0.participantCount } ?? 0 }

    /// The participants with something pinned.
    public var pinnedParticipants: [Participant] { participants.filter { $0.pinState.isPinned } }

    /// The local participant's mode.
    public var meetingMode: Mode { localParticipant.mode }

    /// The local connection's state; `nil` before joining.
    public var meetingState: MeetingState? { state.withLock { $0.meetingState } }

    // MARK: Being told of changes

    /// The meeting's changes from now on, in order: the same as the listeners are told, as
    /// values. Each access makes a new stream; several may be iterated at once.
    ///
    /// ```swift
    /// for await change in meeting.events {
    ///     if case .participantJoined(let participant) = change { show(participant) }
    /// }
    /// ```
    public var events: AsyncStream<MeetingChange> { changes.makeStream() }

    /// Adds a listener of the meeting's events. Held weakly.
    public func addEventListener(_ listener: any MeetingEventListener) {
        state.withLock { $0.listeners[ObjectIdentifier(listener)] = WeakListener(listener) }
    }

    /// Removes a listener.
    public func removeEventListener(_ listener: any MeetingEventListener) {
        state.withLock { _ = $0.listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }

    /// Tells `change` to the streams of ``events``, then to every listener on the main actor.
    func notify(_ change: MeetingChange) async {
        changes.yield(change)
        let listeners = state.withLock { $0.listeners.values.compactMap { $0.get((any MeetingEventListener).self) } }
        guard !listeners.isEmpty else { return }
        await MainActor.run { for listener in listeners { listener.tell(change) } }
    }

    func setMeetingState(_ new: MeetingState) async {
        let changed = state.withLock { state -> Bool in
            guard state.meetingState != new else { return false }
            state.meetingState = new
            return true
        }
        if changed { await notify(.meetingStateChanged(new)) }
    }

    func report(_ error: any Error) async {
        let failure = (error as? GreenroomError) ?? GreenroomError(.internalError, "\(error)")
        await notify(.error(failure))
    }

    // MARK: Calls

    /// Joins the meeting. With a token that has only `ask_join`, waits until a moderator
    /// lets the participant in (or throws `entryDenied`).
    public func join() async throws {
        await setMeetingState(.CONNECTING)
        do {
            try await joinOnce(resuming: false)
        } catch {
            await setMeetingState(.CANCELLED)
            await report(error)
            throw error
        }
        startWatchingConnection()
        await notify(.meetingJoined)
    }

    /// Leaves the meeting.
    public func leave() async throws {
        await setMeetingState(.CLOSING)
        let _: EmptyResult = try await client.send(MeetingOperation.leave, args: MeetingRef(meetingId: id))
        await state.withLock({ $0.media })?.stop()
        await stopFollowing()
        await client.keepJoined(id, nil)
        await setMeetingState(.CLOSED)
        await notify(.meetingLeft)
    }

    /// Ends the meeting for everyone (moderators only).
    public func end() async throws {
        let _: EmptyResult = try await client.send(MeetingOperation.end, args: MeetingRef(meetingId: id))
        await client.keepJoined(id, nil)
    }

    /// Changes the local participant's own mode; every participant is told. Refusals
    /// (before joining, or to the current mode) reach ``MeetingEventListener/onError(error:)``;
    /// ``changeMode(to:)`` throws them instead.
    public func changeMode(_ mode: Mode) async {
        do {
            try await changeMode(to: mode)
        } catch {
            await report(error)
        }
    }

    /// Changes the local participant's own mode, and throws a refusal (before joining,
    /// `modeUnchanged` to the current mode) rather than reporting it to the listeners: for a
    /// caller that acts only once the mode has changed.
    public func changeMode(to mode: Mode) async throws {
        let updated: MeetingParticipant = try await client.send(MeetingOperation.changeMode, args: MeetingModeArgs(meetingId: id, mode: mode))
        localParticipant.update { $0 = updated }
        joinArgs.withLock { $0.mode = mode }
    }

    /// Turns the local camera on (`SEND_AND_RECV` only); with media attached, it is sent again.
    public func enableWebcam() async throws { try await setMedia(webcamOn: true) }
    /// Turns the local camera off; with media attached, it is no longer sent.
    public func disableWebcam() async throws { try await setMedia(webcamOn: false) }
    /// Turns the local microphone off; with media attached, it is no longer sent.
    public func muteMic() async throws { try await setMedia(micOn: false) }
    /// Turns the local microphone on (`SEND_AND_RECV` only); with media attached, it is sent again.
    public func unmuteMic() async throws { try await setMedia(micOn: true) }

    private func setMedia(micOn: Bool? = nil, webcamOn: Bool? = nil) async throws {
        if let media {
            if let micOn { await media.setSending(.audio, micOn) }
            if let webcamOn { await media.setSending(.video, webcamOn) }
        }
        let updated: MeetingParticipant = try await client.send(MeetingOperation.setMedia, args: MeetingMediaArgs(meetingId: id, micOn: micOn, webcamOn: webcamOn))
        localParticipant.update { $0 = updated }
        joinArgs.withLock { args in
            args.micEnabled = updated.micOn
            args.webcamEnabled = updated.webcamOn
        }
    }

    /// Lets a participant who asked to join in, or not (moderators only).
    public func respondToEntry(participantId: String, allow: Bool) async throws {
        let _: EmptyResult = try await client.send(MeetingOperation.respondEntry, args: MeetingEntryArgs(meetingId: id, participantId: participantId, allow: allow))
    }

    func setPin(_ participantId: String, _ type: PinType, on: Bool) async {
        do {
            let _: PinState = try await client.send(on ? MeetingOperation.pin : MeetingOperation.unpin,
                                                    args: MeetingPinArgs(meetingId: id, participantId: participantId, pinType: type))
        } catch {
            await report(error)
        }
    }
}

extension GreenroomClient {
    /// Prepares a meeting for the local participant; ``Meeting/join()`` joins it.
    public func initMeeting(meetingId: String, participantId: String, participantName: String, micEnabled: Bool, webcamEnabled: Bool,
                            mode: Mode = .SEND_AND_RECV, metaData: [String: RawJSON] = [:]) -> Meeting {
        Meeting(client: self, args: MeetingJoinArgs(
            meetingId: meetingId, participantId: participantId, name: participantName, mode: mode, metaData: metaData,
            micEnabled: micEnabled, webcamEnabled: webcamEnabled))
    }
}
