import Foundation
import GreenroomProtocol
import ServiceLifecycle

/// Whether this node takes new clients, for a load balancer's readiness check
/// (`GET /ready`), apart from whether it is alive (`GET /health`): not while it starts
/// (until its HTTP server listens, which is after storage is migrated and the services are
/// started), then ready until a graceful shutdown begins, draining after.
final class Readiness: Sendable {
    /// The node's state, as `/ready` names it.
    enum State: String, Sendable {
        case starting
        case ready
        case draining
    }

    private let current = Locked(State.starting)

    /// The node's state now.
    var state: State { current.withLock { $0 } }

    /// The HTTP server listens: the node takes clients (unless it is already draining).
    func listening() {
        current.withLock { if $0 == .starting { $0 = .ready } }
    }

    /// A graceful shutdown began: load balancers are to send no new clients from now on
    /// (the node still admits those that come until its connections drain).
    func drain() { current.withLock { $0 = .draining } }
}

/// The first service to stop on a graceful shutdown: turns the node unready, then waits
/// ``ServerConfiguration/unreadyDelay`` before the connections are drained, so that a load
/// balancer polling `/ready` stops sending new clients here before the node asks its own to
/// reconnect (they would otherwise reconnect to it again). The node serves as before while
/// it waits.
struct ReadinessService: Service {
    let core: ServerCore

    func run() async throws {
        try? await gracefulShutdown()
        core.readiness.drain()
        let delay = core.configuration.unreadyDelay
        guard delay > 0 else { return }
        core.logger.info("shutting down: unready, draining in \(delay) s")
        // Not cancelled with the shutdown: the wait is what the operator asked for.
        try? await Task.sleep(for: .seconds(delay))
    }
}
