import GreenroomProtocol
import NIOCore

/// Every connection the HTTP server has accepted and not yet closed, so that a shutdown can
/// close those the server never got to.
///
/// Hummingbird hands an accepted connection to a task of its own only when it takes it
/// from its queue; a shutdown that runs past its grace cancels the server, and connections
/// still queued then (a loaded node accepts faster than it starts their tasks) were never
/// closed: their clients waited on an open socket for as long as the process lived.
///
/// It also counts the connections still before their first request (no request head yet,
/// or a WebSocket upgrade whose token is being checked): nobody has proven who they are
/// yet, so there may be only so many. When that many wait, the server stops accepting
/// (the listening socket is read no more, so newcomers wait in the kernel's backlog, as
/// in a burst of reconnections) until one of them gets there, times out or goes: its
/// `autoRead` is off, and an ``AcceptGate`` holds the reads other handlers ask for.
final class OpenChannels: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var pending: Set<ObjectIdentifier> = []
        var limit = Int.max
        /// The listening channel while accepting is paused.
        var paused: (any Channel)?
        /// Whether the listening socket is read no more now (the pause applied on its loop).
        var pauseApplied = false
    }

    private let state = Locked(State())

    /// Keeps `channel` until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { $0.channels[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { $0.channels[id] = nil }
            self?.leavePending(id)
        }
    }

    /// Counts `channel` as before its first request; when `limit` are, stops accepting.
    func admitPending(_ channel: any Channel, limit: Int) {
        let id = ObjectIdentifier(channel)
        let pause = state.withLock { state -> (any Channel)? in
            state.limit = limit
            // A channel closed already is not counted (its close ran before this).
            guard state.channels[id] != nil else { return nil }
            state.pending.insert(id)
            guard state.pending.count >= limit, state.paused == nil, let listener = channel.parent else { return nil }
            state.paused = listener
            return listener
        }
        if let pause { applyAccepting(pause) }
    }

    /// `channel` got its first request's head (and the answer to an upgrade).
    func negotiated(_ channel: any Channel) {
        leavePending(ObjectIdentifier(channel))
    }

    /// Whether the server has stopped accepting (its listening socket read no more)
    /// because too many connections wait.
    var isPaused: Bool { state.withLock { $0.pauseApplied } }

    private func leavePending(_ id: ObjectIdentifier) {
        let resume = state.withLock { state -> (any Channel)? in
            guard state.pending.remove(id) != nil, state.pending.count < state.limit, let listener = state.paused else { return nil }
            state.paused = nil
            return listener
        }
        if let resume { applyAccepting(resume) }
    }

    /// Sets the listening channel's reading to what the state says now, on its loop, so
    /// that a pause and a resume issued from two threads end as the state does.
    private func applyAccepting(_ listener: any Channel) {
        listener.eventLoop.execute { [self] in
            let accepting = state.withLock { $0.paused == nil }
            // Reads asked for by other handlers wait at the gate while paused (see AcceptGate).
            AcceptGate.of(listener)?.set(open: accepting)
            listener.setOption(ChannelOptions.autoRead, value: accepting).whenComplete { [self] _ in
                state.withLock { $0.pauseApplied = !accepting && $0.paused != nil }
            }
            if accepting { listener.read() }
        }
    }

    /// The listening channel while accepting is paused.
    var pausedListener: (any Channel)? { state.withLock { $0.paused } }

    /// How many connections are before their first request.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// How many are open.
    var count: Int { state.withLock { $0.channels.count } }

    /// Closes every connection still open.
    func closeAll() {
        for channel in state.withLock({ Array($0.channels.values) }) { channel.close(promise: nil) }
    }
}
