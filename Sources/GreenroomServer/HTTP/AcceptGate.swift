import NIOCore

/// Holds the listening socket's reads while accepting is paused (``OpenChannels``).
///
/// Turning `autoRead` off is not enough on its own: Hummingbird takes accepted connections
/// through an `NIOAsyncChannel`, whose handler asks the listening channel for a `read()`
/// itself whenever its consumer wants more (`_produceMore`), whatever `autoRead` says, and
/// a read that waited for that moment accepts a newcomer during the pause. This handler sits
/// next to the channel's head, below that handler, and keeps such a read until accepting
/// resumes.
final class AcceptGate: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = Any

    private var isOpen = true
    /// A read asked for while closed, passed on when it opens.
    private var heldRead = false
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func read(context: ChannelHandlerContext) {
        if isOpen { context.read() } else { heldRead = true }
    }

    /// Opens or closes the gate; opening passes on a read it held.
    func set(open: Bool) {
        isOpen = open
        guard open, heldRead, let context else { return }
        heldRead = false
        context.read()
    }

    /// The gate of `listener`, added next to its head on first use. On the listener's loop.
    static func of(_ listener: any Channel) -> AcceptGate? {
        let pipeline = listener.pipeline.syncOperations
        if let gate = try? pipeline.handler(type: AcceptGate.self) { return gate }
        let gate = AcceptGate()
        do {
            try pipeline.addHandler(gate, position: .first)
        } catch {
            return nil
        }
        return gate
    }
}
