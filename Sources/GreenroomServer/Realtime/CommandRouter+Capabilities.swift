import GreenroomProtocol

/// The router takes the capabilities' operations over: each handler gets the command's
/// caller and its decoded arguments.
extension CommandRouter: OperationSink {
    mutating func on<Args, Result>(_ op: WireOperation<Args, Result>, pipelined: Bool, _ body: @escaping @Sendable (Caller, Args) async throws -> Result) {
        if pipelined {
            onPipelined(op, body)
        } else {
            on(op, body)
        }
    }
}
