import GreenroomProtocol

/// The WebSocket operations a capability registers (``Capability/registerOperations(_:)``).
/// Each handler gets the caller (identity, client id, what may be done to its connection)
/// and its decoded arguments, and returns its result: never the connection or the server,
/// so what a capability can reach of a command is what its type says.
struct CapabilityOperations {
    /// The router the operations go into.
    private(set) var router: CommandRouter

    init(into router: CommandRouter) {
        self.router = router
    }

    /// Registers the handler of an operation: `body` takes the caller and the operation's
    /// arguments and returns its result, as its declaration in `GreenroomProtocol` fixes them.
    mutating func on<Args, Result>(_ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, Args) async throws -> Result) {
        router.on(op) { context, args in try await body(context.caller, args) }
    }

    /// Registers an operation as ``on(_:_:)`` does, and lets it overlap the commands after
    /// it once its write is queued (``CommandRouter/onPipelined(_:_:)``).
    mutating func onPipelined<Args, Result>(_ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, Args) async throws -> Result) {
        router.onPipelined(op) { context, args in try await body(context.caller, args) }
    }
}
