import Foundation
import Logging
import ServiceLifecycle

/// Removes events older than the retention age, every sweep interval.
struct RetentionService: Service {
    let core: ServerCore

    func run() async throws {
        let age = core.configuration.retentionAge
        let interval = core.configuration.retentionSweepInterval
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    let removed = try await core.storage.trimEvents(before: Date().addingTimeInterval(-age))
                    if removed > 0 { core.logger.info("retention removed \(removed) events") }
                } catch {
                    core.logger.error("retention sweep failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }
}

/// On graceful shutdown, tells every client to reconnect (close code 4000) and waits,
/// at most the shutdown grace, for them to go; it stops before the HTTP server does.
struct ConnectionDrainService: Service {
    let core: ServerCore

    func run() async throws {
        try? await gracefulShutdown()
        core.authenticator.beginDraining()
        let connections = core.connections.all
        core.logger.info("shutting down: asking \(connections.count) clients to reconnect")
        for connection in connections {
            connection.requestClose(.serverRestarting, reason: "server restarting: reconnect and resume")
        }
        let deadline = Date().addingTimeInterval(core.configuration.shutdownGrace)
        while core.connections.count > 0, Date() < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let stragglers = core.connections.all
        if !stragglers.isEmpty {
            core.logger.info("shutting down: cutting \(stragglers.count) clients that did not close in time")
            for connection in stragglers { connection.drop() }
        }
    }
}

/// Closes the storage after everything that writes to it has stopped.
struct StorageService: Service {
    let core: ServerCore

    func run() async throws {
        try? await gracefulShutdown()
        try await core.storage.close()
    }
}

/// Keeps this node's presence entries alive and removes everyone else's that expired (a
/// node that died stops renewing its entries), telling their streams.
struct PresenceService: Service {
    let core: ServerCore

    func run() async throws {
        let ttl = core.configuration.presenceTTL
        let period = max(min(ttl / 3, 5), 0.2)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await core.storage.renewPresence(node: core.nodeId, until: Date().addingTimeInterval(ttl))
                    for entry in try await core.storage.expiredPresence(before: Date()) {
                        do {
                            try await core.presences.expire(entry)
                        } catch {
                            core.logger.debug("entry \(entry.clientId) on \(entry.stream) stays: \(error)")
                        }
                    }
                } catch {
                    core.logger.error("presence sweep failed: \(error)")
                }
                try? await Task.sleep(for: .seconds(period))
            }
        }
    }
}
