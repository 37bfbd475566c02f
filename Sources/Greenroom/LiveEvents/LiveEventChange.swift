import Foundation
import GreenroomProtocol

/// A change of a live event, as ``LiveEvent/events`` gives it: the same changes, in the same
/// order, as the ``LiveEventDelegate`` methods named beside each case are called with.
public enum LiveEventChange: Sendable {
    /// A host entered (``LiveEventDelegate/didHostEnter(_:host:)``).
    case hostEntered(LiveEventHost)
    /// A host exited, or did not come back within the grace period (``LiveEventDelegate/didHostExit(_:host:)``).
    case hostExited(LiveEventHost)
    /// A disconnected host is connected again (``LiveEventDelegate/didHostConnect(_:host:)``).
    case hostConnected(LiveEventHost)
    /// A host's connection dropped (``LiveEventDelegate/didHostDisconnect(_:host:)``).
    case hostDisconnected(LiveEventHost)
    /// A host muted its microphone (``LiveEventDelegate/didHostMuteAudioInput(_:host:)``).
    case hostMutedAudioInput(LiveEventHost)
    /// A host unmuted its microphone (``LiveEventDelegate/didHostUnmuteAudioInput(_:host:)``).
    case hostUnmutedAudioInput(LiveEventHost)
    /// A host started its camera (``LiveEventDelegate/didHostStartVideo(_:host:)``).
    case hostStartedVideo(LiveEventHost)
    /// A host stopped its camera (``LiveEventDelegate/didHostStopVideo(_:host:)``).
    case hostStoppedVideo(LiveEventHost)
    /// The participant counts changed, at most once a second (``LiveEventDelegate/didParticipantCountChange(_:participantCountInfo:)``).
    case participantCountChanged(ParticipantCountInfo)
    /// The event became ready (``LiveEventDelegate/didLiveEventReady(_:)``).
    case ready
    /// The event started (``LiveEventDelegate/didLiveEventStart(_:)``).
    case started
    /// The event ended; everyone is out (``LiveEventDelegate/didLiveEventEnd(_:)``).
    case ended
    /// The title or cover changed (``LiveEventDelegate/didLiveEventInfoUpdate(_:)``).
    case infoUpdated
    /// The local user was put out of the event: it ended, or entering again after a
    /// reconnect failed, with that error (``LiveEventDelegate/didExit(_:error:)``).
    case exited(error: (any Error)?)
    /// The local user's connection dropped while inside (``LiveEventDelegate/didDisconnect(_:error:)``).
    case disconnected
    /// The local user is back inside after a reconnect (``LiveEventDelegate/didReconnect(_:)``).
    case reconnected
    /// Custom items were set (``LiveEventDelegate/didUpdateCustomItems(_:customItems:updatedKeys:)``).
    case customItemsUpdated(customItems: [String: String], updatedKeys: [String])
    /// Custom items were deleted (``LiveEventDelegate/didDeleteCustomItems(_:customItems:deletedKeys:)``).
    case customItemsDeleted(customItems: [String: String], deletedKeys: [String])
    /// A reaction's count changed, at most once a second (``LiveEventDelegate/didReactionCountUpdate(_:key:value:)``).
    case reactionCountUpdated(key: String, value: Int)
    /// A user's connection quality changed (``LiveEventDelegate/didConnectionQualityChange(_:userId:quality:)``).
    case connectionQualityChanged(userId: String, quality: ConnectionQuality)
}

extension LiveEventDelegate {
    /// Calls the method of this delegate that tells `change` of `liveEvent`.
    func tell(_ change: LiveEventChange, of liveEvent: LiveEvent) {
        switch change {
        case .hostEntered(let host): didHostEnter(liveEvent, host: host)
        case .hostExited(let host): didHostExit(liveEvent, host: host)
        case .hostConnected(let host): didHostConnect(liveEvent, host: host)
        case .hostDisconnected(let host): didHostDisconnect(liveEvent, host: host)
        case .hostMutedAudioInput(let host): didHostMuteAudioInput(liveEvent, host: host)
        case .hostUnmutedAudioInput(let host): didHostUnmuteAudioInput(liveEvent, host: host)
        case .hostStartedVideo(let host): didHostStartVideo(liveEvent, host: host)
        case .hostStoppedVideo(let host): didHostStopVideo(liveEvent, host: host)
        case .participantCountChanged(let info): didParticipantCountChange(liveEvent, participantCountInfo: info)
        case .ready: didLiveEventReady(liveEvent)
        case .started: didLiveEventStart(liveEvent)
        case .ended: didLiveEventEnd(liveEvent)
        case .infoUpdated: didLiveEventInfoUpdate(liveEvent)
        case .exited(let error): didExit(liveEvent, error: error)
        case .disconnected: didDisconnect(liveEvent, error: nil)
        case .reconnected: didReconnect(liveEvent)
        case .customItemsUpdated(let items, let keys): didUpdateCustomItems(liveEvent, customItems: items, updatedKeys: keys)
        case .customItemsDeleted(let items, let keys): didDeleteCustomItems(liveEvent, customItems: items, deletedKeys: keys)
        case .reactionCountUpdated(let key, let value): didReactionCountUpdate(liveEvent, key: key, value: value)
        case .connectionQualityChanged(let userId, let quality): didConnectionQualityChange(liveEvent, userId: userId, quality: quality)
        }
    }
}
