import Foundation
import Greenroom
import Testing

/// Records every delegate call of a live event, in order, as `name` or `name:detail`.
@MainActor
final class LiveEventRecorder: LiveEventDelegate {
    var calls: [String] = []
    /// The changes ``LiveEvent/events`` gave, written as ``calls`` are.
    var streamed: [String] = []
    var customItems: [[String: String]] = []
    var counts: [ParticipantCountInfo] = []

    func didHostEnter(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostEnter:\(host.userId)") }
    func didHostExit(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostExit:\(host.userId)") }
    func didHostConnect(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostConnect:\(host.userId)") }
    func didHostDisconnect(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostDisconnect:\(host.userId)") }
    func didHostMuteAudioInput(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostMute:\(host.userId)") }
    func didHostUnmuteAudioInput(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostUnmute:\(host.userId)") }
    func didHostStartVideo(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostVideoOn:\(host.userId)") }
    func didHostStopVideo(_ liveEvent: LiveEvent, host: LiveEventHost) { calls.append("hostVideoOff:\(host.userId)") }
    func didParticipantCountChange(_ liveEvent: LiveEvent, participantCountInfo: ParticipantCountInfo) {
        calls.append("count")
        counts.append(participantCountInfo)
    }
    func didLiveEventReady(_ liveEvent: LiveEvent) { calls.append("ready") }
    func didLiveEventStart(_ liveEvent: LiveEvent) { calls.append("start") }
    func didLiveEventEnd(_ liveEvent: LiveEvent) { calls.append("end") }
    func didLiveEventInfoUpdate(_ liveEvent: LiveEvent) { calls.append("info") }
    func didExit(_ liveEvent: LiveEvent, error: (any Error)?) { calls.append("exit") }
    func didDisconnect(_ liveEvent: LiveEvent, error: (any Error)?) { calls.append("disconnect") }
    func didReconnect(_ liveEvent: LiveEvent) { calls.append("reconnect") }
    func didUpdateCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], updatedKeys: [String]) {
        calls.append("itemsUpdated:\(updatedKeys.joined(separator: ","))")
        self.customItems.append(customItems)
    }
    func didDeleteCustomItems(_ liveEvent: LiveEvent, customItems: [String: String], deletedKeys: [String]) {
        calls.append("itemsDeleted:\(deletedKeys.joined(separator: ","))")
        self.customItems.append(customItems)
    }
    func didReactionCountUpdate(_ liveEvent: LiveEvent, key: String, value: Int) { calls.append("reaction:\(key)=\(value)") }
    func didConnectionQualityChange(_ liveEvent: LiveEvent, userId: String, quality: ConnectionQuality) { calls.append("quality:\(userId):\(quality.rawValue)") }

    /// The calls that start with `prefix`.
    func named(_ prefix: String) -> [String] { calls.filter { $0.hasPrefix(prefix) } }
}

extension LiveEventRecorder {
    /// A recorder added to `liveEvent` under the key `test`.
    nonisolated static func attached(to liveEvent: LiveEvent) async -> LiveEventRecorder {
        let recorder = LiveEventRecorder()
        let changes = liveEvent.events
        Task { @MainActor in
            for await change in changes { recorder.streamed.append(change.recorded) }
        }
        liveEvent.addDelegate(recorder, forKey: "test")
        return recorder
    }

    /// Waits until ``LiveEvent/events`` has given the same changes, in the same order, as
    /// the delegate was told (for a recorder attached before anything happened to the event).
    nonisolated func expectEventsStreamMatches() async throws {
        try await eventually("the events stream tells what the delegate was told") {
            await MainActor.run { !self.calls.isEmpty && self.streamed == self.calls }
        }
    }

    /// Waits until the recorder's calls satisfy `condition`.
    nonisolated func wait(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping @MainActor ([String]) -> Bool) async throws {
        try await eventually(what, timeout: timeout) { await MainActor.run { condition(self.calls) } }
    }

    nonisolated var snapshot: [String] { get async { await MainActor.run { calls } } }
}

extension LiveEventChange {
    /// The change written as ``LiveEventRecorder`` writes the delegate call that tells it.
    var recorded: String {
        switch self {
        case .hostEntered(let host): "hostEnter:\(host.userId)"
        case .hostExited(let host): "hostExit:\(host.userId)"
        case .hostConnected(let host): "hostConnect:\(host.userId)"
        case .hostDisconnected(let host): "hostDisconnect:\(host.userId)"
        case .hostMutedAudioInput(let host): "hostMute:\(host.userId)"
        case .hostUnmutedAudioInput(let host): "hostUnmute:\(host.userId)"
        case .hostStartedVideo(let host): "hostVideoOn:\(host.userId)"
        case .hostStoppedVideo(let host): "hostVideoOff:\(host.userId)"
        case .participantCountChanged: "count"
        case .ready: "ready"
        case .started: "start"
        case .ended: "end"
        case .infoUpdated: "info"
        case .exited: "exit"
        case .disconnected: "disconnect"
        case .reconnected: "reconnect"
        case .customItemsUpdated(_, let keys): "itemsUpdated:\(keys.joined(separator: ","))"
        case .customItemsDeleted(_, let keys): "itemsDeleted:\(keys.joined(separator: ","))"
        case .reactionCountUpdated(let key, let value): "reaction:\(key)=\(value)"
        case .connectionQualityChanged(let userId, let quality): "quality:\(userId):\(quality.rawValue)"
        }
    }
}
