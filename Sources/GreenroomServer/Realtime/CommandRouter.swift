import Foundation
import GreenroomProtocol
import Logging
import NIOCore
import Tracing

/// One command as the router runs it: its id, its caller, and the caller's session. The
/// router keeps this to itself: a handler gets the caller and its arguments, and the
/// transport's own operations the session besides (``StreamSession``).
struct CommandCall: Sendable {
    let id: UInt64
    /// The caller as services see it: identity, client id and what may be done to its
    /// connection (made once per connection, as its session starts).
    let caller: Caller
    /// What the transport's own operations may do to the caller's connection.
    let session: any StreamSession
}

/// Maps operation names to handlers. Handlers decode their arguments, do the work and
/// return the reply; every failure becomes an error reply and the connection stays open.
struct CommandRouter: Sendable {
    /// A handler returns the encoded reply, or `nil` when it has queued its reply itself.
    typealias Handler = @Sendable (CommandCall, RawJSON?) async throws -> ByteBuffer?

    /// Counts each command by operation and outcome.
    let metrics: ServerMetrics
    /// The budgets commands are checked against before they run.
    let rateLimiter: RateLimiter
    /// Where failures that are not the client's are logged.
    let logger: Logger
    /// Makes each command's span when tracing is on (``CommandSpan``); `nil` when it is off.
    let tracer: (any Tracer)?

    private(set) var handlers: [String: Handler] = [:]
    /// Operations that may overlap the commands after them (see ``CommandPipeline``): each
    /// does its checks inside its one write, so nothing it reads can change under it.
    private(set) var pipelined: Set<String> = []

    /// Registers the handler of an operation: `body` takes the caller and the operation's
    /// arguments and returns its result, as its declaration in `GreenroomProtocol` fixes them.
    mutating func on<Args, Result>(
        _ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, Args) async throws -> Result
    ) {
        onSession(op) { caller, _, args in try await body(caller, args) }
    }

    /// Registers an operation as ``on(_:_:)`` does, and lets it overlap the commands after
    /// it once its write is queued. Only for operations whose every read and check happens
    /// inside their single write transaction.
    mutating func onPipelined<Args, Result>(
        _ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, Args) async throws -> Result
    ) {
        on(op, body)
        pipelined.insert(op.name)
    }

    /// Registers one of the transport's own operations, whose handler also gets the
    /// caller's ``StreamSession`` (its subscriptions and presence).
    mutating func onSession<Args, Result>(
        _ op: WireOperation<Args, Result>, _ body: @escaping @Sendable (Caller, any StreamSession, Args) async throws -> Result
    ) {
        let name = op.name
        handlers[name] = { call, raw in
            let args: Args = try Self.decodeArgs(raw, op: name)
            let result = try await body(call.caller, call.session, args)
            return try Self.encode(ReplyFrame(re: call.id, result: result))
        }
    }

    /// Queues the reply of one command before the handler's other frames.
    typealias Reply<Result> = @Sendable (Result) throws -> Void

    /// Registers one of the transport's own operations that queues its reply itself, to
    /// order it before the frames that follow it (a subscription's replay): `body` gets
    /// the caller, its session, the decoded arguments and the reply to call.
    mutating func onRaw<Args, Result>(
        _ op: WireOperation<Args, Result>,
        _ body: @escaping @Sendable (Caller, any StreamSession, Args, _ reply: @escaping Reply<Result>) async throws -> Void
    ) {
        let name = op.name
        handlers[name] = { call, raw in
            let args: Args = try Self.decodeArgs(raw, op: name)
            let reply: Reply<Result> = { result in call.session.send(try Self.encode(ReplyFrame(re: call.id, result: result))) }
            try await body(call.caller, call.session, args, reply)
            return nil
        }
    }

    static func decodeArgs<Args: Decodable>(_ raw: RawJSON?, op: String) throws -> Args {
        do {
            return try (raw ?? .dictionary([:])).decode(as: Args.self)
        } catch let error as DecodingError {
            throw GreenroomError(.invalidParameterValue, "invalid arguments for \(op): \(Self.describe(error))")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "" : "\(path): "
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(path(context))expected \(type)"
        case .valueNotFound(let type, let context): return "\(path(context))expected \(type), found null"
        case .keyNotFound(let key, let context): return "\(path(context))\(key.stringValue) is required"
        case .dataCorrupted(let context): return "\(path(context))\(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    static func encode(_ value: some Encodable) throws -> ByteBuffer {
        ByteBuffer(data: try WireCoding.encode(value))
    }

    static func errorFrame(_ re: UInt64, _ error: GreenroomError) -> ByteBuffer {
        (try? encode(ErrorFrame(re: re, error: error))) ?? ByteBuffer(string: #"{"re":0,"error":{"code":1900000,"name":"internalError","message":"encoding failed"}}"#)
    }

    /// Reads one frame's text, runs its command and queues the reply on the connection;
    /// returns when the connection may read its next command (see ``CommandPipeline``),
    /// and how long it is to wait first: a command refused with `rateLimited` holds the
    /// connection's next one for the refusal's `retryAfterMs` (see ``hold(_:)``), so that a
    /// client sending past its budget is read no faster than it is let act. A malformed or
    /// unknown command takes a token of its user's reads, and holds the same way without one.
    /// `arrived` is when its frame was read, the start of its span when tracing is on.
    @discardableResult
    func handle(_ text: ByteBuffer, arrived: DefaultTracerClock.Instant? = nil, on connection: ClientConnection, as caller: Caller,
                pipeline: CommandPipeline) async -> Duration? {
        let command: CommandFrame
        do {
            command = try CommandFrame.parse(text.readableBytesView)
        } catch {
            metrics.command("invalid", outcome: ErrorCode.malformedFrame.name)
            let reason = (error as? DecodingError).map(Self.describe) ?? "not JSON"
            connection.send(Self.errorFrame(0, GreenroomError(.malformedFrame, "the frame is not a command {id, op, args}: \(reason)")))
            return Self.hold(rateLimiter.refusal(connection, .reads))
        }
        guard let handler = handlers[command.op] else {
            metrics.command("unknown", outcome: ErrorCode.unknownOperation.name)
            connection.send(Self.errorFrame(command.id, GreenroomError(.unknownOperation, "no operation named \(command.op)")))
            return Self.hold(rateLimiter.refusal(connection, .reads))
        }
        if let refusal = rateLimiter.refusal(connection, OperationClass.of(op: command.op)) {
            metrics.command(command.op, outcome: refusal.name)
            connection.send(Self.errorFrame(command.id, refusal))
            return Self.hold(refusal)
        }
        let call = CommandCall(id: command.id, caller: caller, session: ConnectionSession(connection: connection))
        let span = tracer.map { CommandSpan(command, caller: caller, arrived: arrived, tracer: $0) }
        guard pipelined.contains(command.op) else {
            await pipeline.waitUntilIdle()
            await run(handler, command, call, on: connection, span: span)
            return nil
        }
        let turn = CommandTurn()
        pipeline.begin()
        Task {
            await EventLog.$whenQueued.withValue(EventLog.QueuedHook { turn.pass() }) {
                await run(handler, command, call, on: connection, span: span)
            }
            turn.pass()
            pipeline.end()
        }
        await turn.wait()
        return nil
    }

    /// How long a rate refusal holds a connection's next command: its wait, at least a
    /// millisecond (``CommandQueue`` doubles it for each refusal in a row).
    static func hold(_ refusal: GreenroomError?) -> Duration? {
        guard let refusal else { return nil }
        return .milliseconds(max(refusal.retryAfterMs ?? 0, 1))
    }

    /// Runs a command's handler and queues its reply; with a span, inside it (what the
    /// command writes is traced as its child) and ends it with the outcome.
    private func run(_ handler: Handler, _ command: CommandFrame, _ call: CommandCall, on connection: ClientConnection,
                     span: CommandSpan?) async {
        guard let span else {
            await run(handler, command, call, on: connection)
            return
        }
        let failure = await ServiceContext.$current.withValue(span.context) {
            await run(handler, command, call, on: connection)
        }
        span.end(failure)
    }

    /// Runs a command's handler and queues its reply. - Returns: its failure, if it failed.
    @discardableResult
    private func run(_ handler: Handler, _ command: CommandFrame, _ call: CommandCall, on connection: ClientConnection) async -> GreenroomError? {
        do {
            if let reply = try await handler(call, command.args) { connection.send(reply) }
            metrics.command(command.op, outcome: "ok")
            return nil
        } catch {
            let failure = GreenroomError.reported(error, to: logger)
            metrics.command(command.op, outcome: failure.name)
            connection.send(Self.errorFrame(command.id, failure))
            return failure
        }
    }
}
