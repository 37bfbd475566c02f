import Foundation
import GreenroomProtocol

/// ICE restarts: when a connection's media stops flowing (its ICE state stays `disconnected`,
/// or goes `failed`) or the device's network changes, the session restarts ICE on the
/// existing connection instead of tearing it down. The feeds stay the same: a publisher's
/// feed id does not change, and nobody sees it leave and come back.
extension MediaSession {
    /// How long a connection may stay `disconnected` before ICE is restarted on it: a few lost
    /// consent checks recover by themselves.
    public static let disconnectedGrace: Duration = .seconds(2)
    /// How long a restart has to bring its connection up before the next one.
    public static let restartRetry: Duration = .seconds(10)

    /// Restarts ICE on both connections now, keeping the feeds. Call it when the device's
    /// network changed (on Apple platforms, from `NWPathMonitor`'s path updates): the old
    /// candidate pairs may never answer again, and waiting for the engine to notice takes
    /// seconds.
    public func restartICE() {
        for role in [MediaConnectionRole.publisher, .subscriber] {
            enqueue { session in try await session.restart(role) }
        }
    }

    /// Follows the engine's connection changes (see ``MediaEngine/connectionChanges()``).
    func watchConnections() {
        guard watcher == nil else { return }
        let changes = engine.connectionChanges()
        watcher = Task { [weak self] in
            for await change in changes { await self?.connectionChanged(change) }
        }
    }

    func stopWatching() {
        watcher?.cancel()
        watcher = nil
        stopReporting()
        for task in restarters.values { task.cancel() }
        restarters = [:]
    }

    /// A connection's ICE state changed: one down starts restarting (at once when `failed`,
    /// after ``disconnectedGrace`` when `disconnected`) until it is up, closed or made anew.
    func connectionChanged(_ change: MediaConnectionChange) {
        connectionStates[change.role] = change.state
        switch change.state {
        case .disconnected, .failed:
            guard restarters[change.role] == nil else { return }
            let grace = change.state == .failed ? Duration.zero : Self.disconnectedGrace
            restarters[change.role] = Task { [weak self] in
                try? await Task.sleep(for: grace)
                await self?.restartWhileDown(change.role)
            }
        case .checking:
            // A restart under way: the retry carries on.
            break
        case .new, .connected, .completed, .closed:
            restarters.removeValue(forKey: change.role)?.cancel()
        }
    }

    private func restartWhileDown(_ role: MediaConnectionRole) async {
        while !Task.isCancelled, let state = connectionStates[role], !state.isUp, state != .closed, state != .new {
            enqueue { session in try await session.restart(role) }
            try? await Task.sleep(for: Self.restartRetry)
        }
        if !Task.isCancelled { restarters[role] = nil }
    }

    /// Restarts ICE on one connection: the sending one offers again with fresh credentials
    /// (`media.publish`, the same feed); the receiving one asks the media server for a fresh
    /// offer (`media.iceRestart`) and answers it.
    func restart(_ role: MediaConnectionRole) async throws {
        switch role {
        case .publisher:
            guard isPublishing else { return }
            try await refreshICEServers()
            let offer: SessionDescription
            do {
                offer = try await engine.makeICERestartOffer()
            } catch let error as GreenroomError where error.is(.unknownOperation) {
                // The engine cannot: publish afresh, as a new feed.
                _ = try? await client.send(MediaOperation.unpublish, args: MediaRoomRef(stream: stream))
                await teardown(publishing: true, receiving: false)
                try await publish()
                return
            }
            let result = try await client.send(MediaOperation.publish, args: MediaPublishArgs(stream: stream, jsep: offer))
            try await engine.acceptPublishAnswer(result.jsep)
            localFeed = result.feed
            iceRestarts += 1
        case .subscriber:
            guard receiving else { return }
            try await refreshICEServers()
            try await negotiate(try await client.send(MediaOperation.iceRestart, args: MediaRoomRef(stream: stream)))
            iceRestarts += 1
        }
    }
}
