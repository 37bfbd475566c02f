import Foundation
import GreenroomProtocol

/// A participant of a meeting, kept current with the meeting's events.
public final class Participant: Sendable, Identifiable {
    private struct State {
        var data: MeetingParticipant
        var pinState = PinState()
        var connectionQuality: ConnectionQuality?
        var listeners: [ObjectIdentifier: WeakListener] = [:]
    }

    /// The participant's id.
    public let id: String
    /// Whether this is the local participant.
    public let isLocal: Bool
    weak let meeting: Meeting?
    private let state: Locked<State>

    init(_ data: MeetingParticipant, isLocal: Bool, meeting: Meeting) {
        self.id = data.participantId
        self.isLocal = isLocal
        self.meeting = meeting
        self.state = Locked(State(data: data))
    }

    /// Everything the server told about the participant.
    public var data: MeetingParticipant { state.withLock { $0.data } }
    /// The name shown to others.
    public var displayName: String { data.name }
    /// How it takes part.
    public var mode: Mode { data.mode }
    /// The app's own data about it.
    public var metaData: [String: RawJSON] { data.metaData }
    /// Whether its microphone is on.
    public var micOn: Bool { data.micOn }
    /// Whether its camera is on.
    public var webcamOn: Bool { data.webcamOn }
    /// Whether its connection is gone for now (it comes back, or leaves after the grace period).
    public var isReconnecting: Bool { data.state == .reconnecting }
    /// What of it is pinned, meeting-wide.
    public var pinState: PinState { state.withLock { $0.pinState } }
    /// How well its media gets through, as the server last rated it; `nil` until rated
    /// (see ``MeetingEventListener/onConnectionQualityChanged(participantId:quality:)``).
    public var connectionQuality: ConnectionQuality? { state.withLock { $0.connectionQuality } }

    /// Pins the participant for everyone (`SHARE_AND_CAM` by default). Pins add up by type;
    /// failures reach ``MeetingEventListener/onError(error:)``.
    public func pin(_ pinType: PinType = .SHARE_AND_CAM) {
        guard let meeting else { return }
        let id = self.id
        Task { await meeting.setPin(id, pinType, on: true) }
    }

    /// Unpins what `pinType` covers (`SHARE_AND_CAM` by default).
    public func unpin(_ pinType: PinType = .SHARE_AND_CAM) {
        guard let meeting else { return }
        let id = self.id
        Task { await meeting.setPin(id, pinType, on: false) }
    }

    /// Adds a listener of this participant's streams. Held weakly.
    public func addEventListener(_ listener: any ParticipantEventListener) {
        state.withLock { $0.listeners[ObjectIdentifier(listener)] = WeakListener(listener) }
    }

    /// Removes a listener.
    public func removeEventListener(_ listener: any ParticipantEventListener) {
        state.withLock { _ = $0.listeners.removeValue(forKey: ObjectIdentifier(listener)) }
    }

    func update(_ change: (inout MeetingParticipant) -> Void) {
        state.withLock { change(&$0.data) }
    }

    /// Keeps a new rating; `false` when it is the one kept already.
    func setConnectionQuality(_ quality: ConnectionQuality) -> Bool {
        state.withLock { state in
            defer { state.connectionQuality = quality }
            return state.connectionQuality != quality
        }
    }

    func setPinState(_ pins: PinState) {
        state.withLock { $0.pinState = pins }
    }

    func streamChanged(_ kind: MediaKind, on: Bool) async {
        update { data in
            switch kind {
            case .audio: data.micOn = on
            case .video: data.webcamOn = on
            case .share: break
            }
        }
        let listeners = state.withLock { $0.listeners.values.compactMap { $0.get((any ParticipantEventListener).self) } }
        guard !listeners.isEmpty else { return }
        let stream = MediaStream(kind: kind)
        await MainActor.run {
            for listener in listeners {
                if on { listener.onStreamEnabled(stream, forParticipant: self) } else { listener.onStreamDisabled(stream, forParticipant: self) }
            }
        }
    }
}
