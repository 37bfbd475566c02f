import GreenroomProtocol

/// The WebSocket operations a capability registers (``Capability/registerOperations(_:)``).
/// Each handler gets the caller (identity, client id, what may be done to its connection)
/// and its decoded arguments, and returns its result: never the connection or the server,
/// so what a capability can reach of a command is what its type says. The transport's
/// router takes them over (``OperationSink``).
package struct CapabilityOperations {
    /// The operations registered so far, in order.
    package private(set) var registrations: [any OperationRegistration] = []

    /// No operations yet.
    package init() {}

    /// Registers the handler of an operation: `body` takes the caller and the operation's
    /// arguments and returns its result, as its declaration in `GreenroomProtocol` fixes them.
    package mutating func on<Args, Result>(_ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, Args) async throws -> Result) {
        registrations.append(Registration(op: op, pipelined: false, body: body))
    }

    /// Registers an operation as ``on(_:_:)`` does, and lets it overlap the commands after
    /// it once its write is queued: only for operations whose every read and check happens
    /// inside their single write transaction.
    package mutating func onPipelined<Args, Result>(_ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, Args) async throws -> Result) {
        registrations.append(Registration(op: op, pipelined: true, body: body))
    }

    /// Hands every operation to `sink`.
    package func register(into sink: inout some OperationSink) {
        for registration in registrations { registration.register(into: &sink) }
    }
}

/// What takes a capability's operations over: the transport's command router.
package protocol OperationSink {
    /// Adds the handler of `op`; `pipelined` as ``CapabilityOperations/onPipelined(_:_:)`` says.
    mutating func on<Args, Result>(_ op: WireOperation<Args, Result>, pipelined: Bool, _ body: @escaping @Sendable (Caller, Args) async throws -> Result)
}

/// One registered operation, with its types.
package protocol OperationRegistration: Sendable {
    /// Adds it to `sink`.
    func register(into sink: inout some OperationSink)
}

private struct Registration<Args: Codable & Sendable, Result: Codable & Sendable>: OperationRegistration {
    let op: WireOperation<Args, Result>
    let pipelined: Bool
    let body: @Sendable (Caller, Args) async throws -> Result

    func register(into sink: inout some OperationSink) {
        sink.on(op, pipelined: pipelined, body)
    }
}
