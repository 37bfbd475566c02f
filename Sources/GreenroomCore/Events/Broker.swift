import GreenroomProtocol
import ServiceLifecycle
import Tracing

/// How an event this node stored reaches the subscribers of every node: each node's hub
/// delivers to its own connections, and the broker carries events to the hubs.
///
/// The storage decides which one a node runs: embedded SQLite has one node, so the local
/// broker hands events straight to the hub; PostgreSQL shares the log between nodes, so its
/// relay carries them with LISTEN/NOTIFY and reads the log for anything a notification
/// missed.
package protocol Broker: Sendable {
    /// Hands the events of a batch this node stored (in offset order per stream) to
    /// subscribers on every node; `handedOff` runs once this node's subscribers have them
    /// queued (or at once, when the broker delivers them later), and the batch is
    /// acknowledged then. `traces` holds, when tracing is on, each event's write span (or
    /// `nil` for an untraced one), in the order of `events`; it is empty when none is traced.
    func publish(_ events: [StreamEvent], traces: [ServiceContext?], then handedOff: @escaping @Sendable () -> Void)
    /// Relays a signal (ephemeral, never stored) to the subscribers of its stream on
    /// every node, this one at once; best effort, with no order kept against events.
    func signal(_ signal: StreamSignal)
    /// Notes that a subscription on this node reads `stream` live after `head`, having
    /// replayed the log up to there itself, so that an event this node's broker has not
    /// heard of by then (a notification sent before its listener was connected, or while it
    /// reconnected) is still delivered to it, read from the log.
    func follow(_ stream: String, after head: UInt64)
    /// The broker's background work (a listener), run with the server's services; `nil`
    /// when it needs none.
    var service: (any Service)? { get }
}
