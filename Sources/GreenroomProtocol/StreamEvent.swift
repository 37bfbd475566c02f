import Foundation

/// A position in a stream: the offset of the last event seen and the stream's epoch.
///
/// Offsets start at 1 and increase by one per event. The epoch changes when the stream's
/// history was lost (for example its log was reset); a position from another epoch cannot
/// be resumed.
public struct StreamPosition: Codable, Hashable, Sendable {
    /// The offset of the last event seen (0 before the first event).
    public var offset: UInt64
    /// The stream's epoch; `nil` means "whatever the current epoch is".
    public var epoch: String?

    /// Makes a position.
    public init(offset: UInt64, epoch: String?) {
        self.offset = offset
        self.epoch = epoch
    }
}

/// One event on a stream, as stored in the stream's log and pushed to subscribers.
public struct StreamEvent: Codable, Hashable, Sendable {
    /// The stream, e.g. `user:alice`, `app:scores`, `channel:c1`.
    public var stream: String
    /// The event's offset in its stream (1, 2, 3, …).
    public var offset: UInt64
    /// The stream's epoch when the event was written.
    public var epoch: String
    /// The kind of event, e.g. `app.event`, `message.new`.
    public var type: String
    /// The event's data.
    public var data: RawJSON
    /// When the event was written.
    public var at: Date
    /// The users the event is for when not every reader of its stream (a `sendOnly` pub/sub
    /// message, an entry request for moderators): the server's routing, never sent.
    package var audience: Set<String>?
    /// Who loses the right to read the stream with this event (a member who left, a deleted
    /// channel): the server's routing, never sent.
    package var revokes: ReadRevocation?

    private enum CodingKeys: String, CodingKey {
        case stream, offset, epoch, type, data, at
    }

    /// Makes an event.
    public init(stream: String, offset: UInt64, epoch: String, type: String, data: RawJSON, at: Date) {
        self.stream = stream
        self.offset = offset
        self.epoch = epoch
        self.type = type
        self.data = data
        self.at = at
    }

    /// The position just after this event.
    public var position: StreamPosition { StreamPosition(offset: offset, epoch: epoch) }
}

/// Who loses the right to read a stream with an event: after it is delivered to them, their
/// subscriptions end, and a later resubscription is refused.
package enum ReadRevocation: Sendable, Hashable {
    /// These users.
    case users(Set<String>)
    /// Everyone (the stream is gone).
    case everyone

    /// Whether `userId` loses the right.
    package func applies(to userId: String) -> Bool {
        switch self {
        case .users(let ids): ids.contains(userId)
        case .everyone: true
        }
    }

    /// As stored with the event: `*`, or the users' ids separated by newlines.
    package var stored: String {
        switch self {
        case .everyone: "*"
        case .users(let ids): ids.sorted().joined(separator: "\n")
        }
    }

    /// Reads what ``stored`` wrote.
    package init?(stored: String?) {
        guard let stored, !stored.isEmpty else { return nil }
        self = stored == "*" ? .everyone : .users(Set(stored.split(separator: "\n").map(String.init)))
    }
}

/// Stream names and their kinds.
///
/// - `user:ID`: a user's private stream; only that user may subscribe.
/// - `app:NAME`: an app stream the app's backend publishes to; readable with a token grant
///   `app:NAME` (or `app:*`).
/// - further kinds (`channel:`, `live:`, `meeting:`, `videos`) belong to their capabilities.
public enum StreamName {
    /// The private stream of a user.
    public static func user(_ id: String) -> String { StreamKind.user.stream(id) }
    /// A named app stream.
    public static func app(_ name: String) -> String { StreamKind.app.stream(name) }

    /// The kind (the part before the first colon) and the rest of a stream name.
    public static func split(_ stream: String) -> (kind: String, id: String) {
        guard let colon = stream.firstIndex(of: ":") else { return (stream, "") }
        return (String(stream[..<colon]), String(stream[stream.index(after: colon)...]))
    }

    /// Whether a stream name is well formed: 1–200 characters of letters, digits and `:_-.@*`,
    /// with no `*` (wildcards are for grants only).
    public static func isValid(_ stream: String) -> Bool {
        guard (1...200).contains(stream.utf8.count) else { return false }
        return stream.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "_"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "@"):
                return true
            default:
                return false
            }
        }
    }
}

/// What a stream belongs to: the part of its name before the first colon (`channel` in
/// `channel:general`). Each capability owns one kind and decides who may read its streams.
public struct StreamKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The kind's name, e.g. `channel`.
    public let rawValue: String

    /// Makes a kind from its name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A user's private stream (`user:<userId>`): profile changes, invitations, entry answers.
    public static let user = StreamKind(rawValue: "user")
    /// An app's own stream (`app:<name>`), published to by the app's backend.
    public static let app = StreamKind(rawValue: "app")
    /// A chat channel's stream (`channel:<channelId>`).
    public static let channel = StreamKind(rawValue: "channel")
    /// A live event's stream (`live:<liveEventId>`).
    public static let live = StreamKind(rawValue: "live")
    /// A stage meeting's stream (`meeting:<meetingId>`).
    public static let meeting = StreamKind(rawValue: "meeting")

    /// The kind of `stream`: the part of its name before the first colon, or the whole name
    /// when it has none (the video feed's `videos`).
    public init(of stream: String) {
        self.rawValue = stream.firstIndex(of: ":").map { String(stream[..<$0]) } ?? stream
    }

    /// The stream of this kind for `id`, e.g. `channel:general`.
    public func stream(_ id: String) -> String { "\(rawValue):\(id)" }

    /// The id in `stream` when it is of this kind (`general` in `channel:general`), else `nil`.
    public func id(in stream: String) -> String? {
        guard stream.utf8.count > rawValue.utf8.count, stream.hasPrefix(rawValue),
              stream.utf8.dropFirst(rawValue.utf8.count).first == UInt8(ascii: ":") else { return nil }
        return String(stream.dropFirst(rawValue.count + 1))
    }

    /// The kind's name.
    public var description: String { rawValue }
}

/// A signal: an ephemeral message on a stream (a member typing), relayed to the stream's
/// subscribers on every node as it happens and never stored.
///
/// A signal has no offset: it is not replayed to a subscriber that connects or resumes
/// later, is not part of a stream's position, and may be lost with a connection or a node;
/// what it says must expire by itself (a typing indicator ends a few seconds after the
/// last refresh). It arrives in a server frame of its own, `{"signal": {...}}`.
public struct StreamSignal: Codable, Hashable, Sendable {
    /// The stream, e.g. `channel:c1`.
    public var stream: String
    /// The kind of signal, e.g. `typing.start`.
    public var type: String
    /// The signal's data.
    public var data: RawJSON
    /// When the server relayed it.
    public var at: Date

    /// Makes a signal.
    public init(stream: String, type: String, data: RawJSON, at: Date) {
        self.stream = stream
        self.type = type
        self.data = data
        self.at = at
    }
}

/// A server frame carrying a signal: `{"signal": {...}}`.
public struct SignalFrame: Encodable, Sendable {
    /// The signal.
    public var signal: StreamSignal

    /// Wraps a signal.
    public init(signal: StreamSignal) { self.signal = signal }
}

extension StreamEvent {
    /// The event's wire JSON, as `WireCoding.encode(event)` writes it (compact, keys
    /// sorted), written straight from its fields: the fan-out and the REST reply write
    /// every stored event, and the generic encoder builds a tree of its values first,
    /// several times the work. `dataJSON`, when given, is its data's JSON already written
    /// once (the text a store keeps): a writer that needs both the data's text and the
    /// whole event's writes the data once, not twice.
    package func wireJSON(dataJSON: [UInt8]? = nil) throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity((dataJSON?.count ?? 64) + stream.utf8.count + type.utf8.count + 96)
        try writeWireJSON(dataJSON: dataJSON, to: &output)
        return output
    }

    /// Appends the event's wire JSON (``wireJSON(dataJSON:)``) to `output`; `dataJSON`, when given,
    /// is its data's JSON already written.
    package func writeWireJSON(dataJSON: [UInt8]? = nil, to output: inout [UInt8]) throws {
        output += #"{"at":"#.utf8
        try RawJSON.string(WireCoding.formatDate(at)).write(to: &output)
        output += #","data":"#.utf8
        if let dataJSON { output += dataJSON } else { try data.write(to: &output) }
        output += #","epoch":"#.utf8
        try RawJSON.string(epoch).write(to: &output)
        output += #","offset":"#.utf8
        output += String(offset).utf8
        output += #","stream":"#.utf8
        try RawJSON.string(stream).write(to: &output)
        output += #","type":"#.utf8
        try RawJSON.string(type).write(to: &output)
        output.append(UInt8(ascii: "}"))
    }
}

extension EventFrame {
    /// The frame's wire JSON, as `WireCoding.encode(frame)` writes it: `{"event":…}`
    /// around the event's (``StreamEvent/writeWireJSON(dataJSON:to:)``).
    package func wireJSON() throws -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(event.stream.utf8.count + event.type.utf8.count + 170)
        output += #"{"event":"#.utf8
        try event.writeWireJSON(to: &output)
        output.append(UInt8(ascii: "}"))
        return output
    }
}
