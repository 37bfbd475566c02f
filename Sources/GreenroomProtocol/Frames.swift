/// A command sent by a client: `{"id": 7, "op": "user.get", "args": {"id": "alice"}}`.
///
/// `id` is chosen by the client and echoed in the reply's `re`; it should be unique among
/// the client's commands in flight.
public struct CommandFrame: Codable, Sendable, Hashable {
    /// The client's identifier for this command.
    public var id: UInt64
    /// The operation name, e.g. `stream.subscribe`.
    public var op: String
    /// The operation's arguments (an object), if any.
    public var args: RawJSON?

    /// Makes a command.
    public init(id: UInt64, op: String, args: RawJSON? = nil) {
        self.id = id
        self.op = op
        self.args = args
    }
}

/// A frame from the server: a reply to a command (`re` with `result` or `error`), an
/// event pushed on a subscribed stream (`event`), or a signal on one (`signal`).
public struct ServerFrame: Codable, Sendable {
    /// The id of the command this frame answers.
    public var re: UInt64?
    /// The command's result, when it succeeded.
    public var result: RawJSON?
    /// Why the command failed.
    public var error: GreenroomError?
    /// A pushed event.
    public var event: StreamEvent?
    /// A pushed signal (ephemeral, never stored).
    public var signal: StreamSignal?

    /// Makes a frame; set exactly one of a reply (`re` plus `result` or `error`), `event`
    /// or `signal`.
    public init(re: UInt64? = nil, result: RawJSON? = nil, error: GreenroomError? = nil, event: StreamEvent? = nil,
                signal: StreamSignal? = nil) {
        self.re = re
        self.result = result
        self.error = error
        self.event = event
        self.signal = signal
    }
}

/// A reply that carries an `Encodable` result; the server uses it to encode replies
/// without first converting the result into ``RawJSON``.
public struct ReplyFrame<Result: Encodable & Sendable>: Encodable, Sendable {
    /// The id of the command answered.
    public var re: UInt64
    /// The result.
    public var result: Result

    /// Makes a reply.
    public init(re: UInt64, result: Result) {
        self.re = re
        self.result = result
    }
}

/// A reply that reports an error.
public struct ErrorFrame: Encodable, Sendable {
    /// The id of the command answered (0 when the frame could not be read at all).
    public var re: UInt64
    /// The error.
    public var error: GreenroomError

    /// Makes an error reply.
    public init(re: UInt64, error: GreenroomError) {
        self.re = re
        self.error = error
    }
}

/// An event frame: `{"event": {...}}`.
public struct EventFrame: Encodable, Sendable {
    /// The event.
    public var event: StreamEvent

    /// Wraps an event.
    public init(event: StreamEvent) { self.event = event }
}

/// An empty result, for operations that only succeed or fail.
public struct EmptyResult: Codable, Sendable, Hashable {
    /// Makes the empty result.
    public init() {}
}
