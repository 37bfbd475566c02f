/// An operation a client sends over the WebSocket: its name on the wire and, in its type,
/// what it takes and what it answers, so that the server's router and the SDK's calls are
/// checked against one declaration by the compiler.
///
/// ```swift
/// // In GreenroomProtocol:
/// public static let join = WireOperation<MeetingJoinArgs, MeetingJoinResult>("meeting.join")
/// // The server:  router.on(MeetingOperation.join) { context, args in … return result }
/// // The SDK:     let result = try await client.send(MeetingOperation.join, args: args)
/// ```
///
/// Each operation is described in `docs/PROTOCOL.md`. (Not named `Operation`: Foundation
/// has a class of that name, and every file that imports both would have to qualify it.)
public struct WireOperation<Args: Codable & Sendable, Result: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The operation's name in a command frame's `op`, e.g. `meeting.join`.
    public let name: String

    /// Declares an operation named `name`.
    public init(_ name: String) { self.name = name }

    /// The operation's name.
    public var description: String { name }
}
