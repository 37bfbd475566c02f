import Foundation
import Greenroom
import Testing

/// Records every delegate call of a live event, in order, as `name` or `name:detail`.
@MainActor
final class LiveEventRecorder: LiveEventDelegate {
    var calls: [String] = []
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

    /// The calls that start with `prefix`.
    func named(_ prefix: String) -> [String] { calls.filter { $0.hasPrefix(prefix) } }
}

extension LiveEventRecorder {
    /// A recorder added to `liveEvent` under the key `test`.
    nonisolated static func attached(to liveEvent: LiveEvent) async -> LiveEventRecorder {
        let recorder = LiveEventRecorder()
        liveEvent.addDelegate(recorder, forKey: "test")
        return recorder
    }

    /// Waits until the recorder's calls satisfy `condition`.
    nonisolated func wait(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping @MainActor ([String]) -> Bool) async throws {
        try await eventually(what, timeout: timeout) { await MainActor.run { condition(self.calls) } }
    }

    nonisolated var snapshot: [String] { get async { await MainActor.run { calls } } }
}
