import Foundation

/// Told of a live event's changes, on the main actor. Every method is optional.
///
/// ```swift
/// class MyClass: LiveEventDelegate {
///     func didUpdateCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], updatedKeys: [String]) { … }
/// }
/// liveEvent.addDelegate(myObject, forKey: "main")
/// ```
@MainActor
public protocol LiveEventDelegate: AnyObject, Sendable {
    /// A host entered.
    func didHostEnter(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A host exited (or did not come back within the grace period).
    func didHostExit(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A disconnected host is connected again.
    func didHostConnect(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A host's connection dropped.
    func didHostDisconnect(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A host muted its microphone.
    func didHostMuteAudioInput(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A host unmuted its microphone.
    func didHostUnmuteAudioInput(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A host started its camera.
    func didHostStartVideo(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// A host stopped its camera.
    func didHostStopVideo(_ liveEvent: LiveEvent, host: LiveEventHost)
    /// The participant counts changed (at most once a second).
    func didParticipantCountChange(_ liveEvent: LiveEvent, participantCountInfo: ParticipantCountInfo)
    /// The event became ready.
    func didLiveEventReady(_ liveEvent: LiveEvent)
    /// The event started.
    func didLiveEventStart(_ liveEvent: LiveEvent)
    /// The event ended; everyone is out.
    func didLiveEventEnd(_ liveEvent: LiveEvent)
    /// The title or cover changed.
    func didLiveEventInfoUpdate(_ liveEvent: LiveEvent)
    /// The local user was put out of the event (it ended, or re-entering after a reconnect failed).
    func didExit(_ liveEvent: LiveEvent, error: (any Error)?)
    /// The local user's connection dropped while inside.
    func didDisconnect(_ liveEvent: LiveEvent, error: (any Error)?)
    /// The local user is back inside after a reconnect.
    func didReconnect(_ liveEvent: LiveEvent)
    /// Custom items were set (only while the event is ongoing).
    func didUpdateCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], updatedKeys: [String])
    /// Custom items were deleted (only while the event is ongoing).
    func didDeleteCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], deletedKeys: [String])
    /// A reaction's count changed (at most once a second).
    func didReactionCountUpdate(_ liveEvent: LiveEvent, key: String, value: Int)
    /// A user's connection quality changed (a host's, or anyone's with media in the event):
    /// `excellent`, `good`, `poor` or `lost`, at most once every two seconds per user.
    func didConnectionQualityChange(_ liveEvent: LiveEvent, userId: String, quality: ConnectionQuality)
}

extension LiveEventDelegate {
    /// Does nothing by default.
    public func didHostEnter(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostExit(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostConnect(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostDisconnect(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostMuteAudioInput(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostUnmuteAudioInput(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostStartVideo(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didHostStopVideo(_ liveEvent: LiveEvent, host: LiveEventHost) {}
    /// Does nothing by default.
    public func didParticipantCountChange(_ liveEvent: LiveEvent, participantCountInfo: ParticipantCountInfo) {}
    /// Does nothing by default.
    public func didLiveEventReady(_ liveEvent: LiveEvent) {}
    /// Does nothing by default.
    public func didLiveEventStart(_ liveEvent: LiveEvent) {}
    /// Does nothing by default.
    public func didLiveEventEnd(_ liveEvent: LiveEvent) {}
    /// Does nothing by default.
    public func didLiveEventInfoUpdate(_ liveEvent: LiveEvent) {}
    /// Does nothing by default.
    public func didExit(_ liveEvent: LiveEvent, error: (any Error)?) {}
    /// Does nothing by default.
    public func didDisconnect(_ liveEvent: LiveEvent, error: (any Error)?) {}
    /// Does nothing by default.
    public func didReconnect(_ liveEvent: LiveEvent) {}
    /// Does nothing by default.
    public func didUpdateCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], updatedKeys: [String]) {}
    /// Does nothing by default.
    public func didDeleteCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], deletedKeys: [String]) {}
    /// Does nothing by default.
    public func didReactionCountUpdate(_ liveEvent: LiveEvent, key: String, value: Int) {}
    /// Does nothing by default.
    public func didConnectionQualityChange(_ liveEvent: LiveEvent, userId: String, quality: ConnectionQuality) {}
}
