import GreenroomProtocol
import NIOCore

/// Every connection the HTTP server has accepted and not yet closed, so that a shutdown can
/// close those the server never got to.
///
/// Hummingbird hands an accepted connection to a task of its own only when it takes it
/// from its queue; a shutdown that runs past its grace cancels the server, and connections
/// still queued then (a loaded node accepts faster than it starts their tasks) were never
/// closed: their clients waited on an open socket for as long as the process lived.
final class OpenChannels: Sendable {
    private let channels = Locked<[ObjectIdentifier: any Channel]>([:])

    /// Keeps `channel` until it closes.
    func add(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        channels.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.channels.withLock { _ = $0.removeValue(forKey: id) }
        }
    }

    /// How many are open.
    var count: Int { channels.withLock { $0.count } }

    /// Closes every connection still open.
    func closeAll() {
        for channel in channels.withLock({ Array($0.values) }) { channel.close(promise: nil) }
    }
}
