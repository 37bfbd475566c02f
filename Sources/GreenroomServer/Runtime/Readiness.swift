import Foundation
import GreenroomProtocol
import ServiceLifecycle
import UnixSignals

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
    /// The shutdowns asked for so far, and the unready delay's wait while it runs: a second
    /// request ends the wait.
    private let stops = Locked<(requests: Int, wait: Task<Void, Never>?)>((0, nil))

    /// The node's state now.
    var state: State { current.withLock { $0 } }

    /// The HTTP server listens: the node takes clients (unless it is already draining).
    func listening() {
        current.withLock { if $0 == .starting { $0 = .ready } }
    }

    /// A graceful shutdown began: load balancers are to send no new clients from now on
    /// (the node still admits those that come until its connections drain).
    func drain() { current.withLock { $0 = .draining } }

    /// A shutdown was asked for (``GreenroomServer/shutdown()`` or a signal): from the second
    /// request on, the unready delay ends at once, so that an operator who asks again is not
    /// kept waiting.
    func shutdownRequested() {
        let wait = stops.withLock { stops -> Task<Void, Never>? in
            stops.requests += 1
            return stops.requests > 1 ? stops.wait : nil
        }
        wait?.cancel()
    }

    /// Waits `delay` seconds, or less if a second shutdown is asked for meanwhile (or was
    /// before).
    func waitOutDelay(_ delay: TimeInterval) async {
        let wait = Task<Void, Never> { try? await Task.sleep(for: .seconds(delay)) }
        let cut = stops.withLock { stops -> Bool in
            stops.wait = wait
            return stops.requests > 1
        }
        if cut { wait.cancel() }
        await wait.value
    }
}

/// The first service to stop on a graceful shutdown: turns the node unready, then waits
/// ``ServerConfiguration/unreadyDelay`` before the connections are drained, so that a load
/// balancer polling `/ready` stops sending new clients here before the node asks its own to
/// reconnect (they would otherwise reconnect to it again). The node serves as before while
/// it waits. A second shutdown request (the same signals again, or a second
/// ``GreenroomServer/shutdown()``) ends the wait at once.
struct ReadinessService: Service {
    let core: ServerCore
    /// The signals that shut the node down gracefully, counted here as shutdown requests.
    let signals: [UnixSignal]

    func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            if !signals.isEmpty {
                group.addTask { [readiness = core.readiness, signals] in
                    for await _ in await UnixSignalsSequence(trapping: signals) { readiness.shutdownRequested() }
                }
            }
            try? await gracefulShutdown()
            core.readiness.drain()
            let delay = core.configuration.unreadyDelay
            if delay > 0 {
                core.logger.info("shutting down: unready, draining in \(delay) s (a second SIGTERM or SIGINT drains now)")
                // Not cancelled with the shutdown: the wait is what the operator asked for.
                await core.readiness.waitOutDelay(delay)
            }
            group.cancelAll()
        }
    }
}
