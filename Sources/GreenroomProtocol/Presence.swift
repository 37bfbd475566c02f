import Foundation

/// One client present on a stream: who, on which connection, with what data.
///
/// Presence is held by the node the client is connected to and renewed while that node
/// lives; when the client leaves or disconnects, or its node dies and the entry expires,
/// everyone subscribed to the stream gets a `presence.left` event.
public struct PresenceEntry: Codable, Sendable, Hashable {
    /// The stream the client is present on.
    public var stream: String
    /// The connection's id, unique across nodes.
    public var clientId: String
    /// The user.
    public var userId: String
    /// The client's own data (a status, a role, …), at most 5 KB.
    public var data: RawJSON
    /// When the client joined.
    public var joinedAt: Date
    /// When the entry expires unless its node renews it.
    public var expiresAt: Date
    /// The node holding the entry.
    public var node: String

    /// Makes an entry.
    public init(stream: String, clientId: String, userId: String, data: RawJSON, joinedAt: Date, expiresAt: Date, node: String) {
        self.stream = stream
        self.clientId = clientId
        self.userId = userId
        self.data = data
        self.joinedAt = joinedAt
        self.expiresAt = expiresAt
        self.node = node
    }
}

/// Arguments of `presence.join`.
public struct PresenceJoinArgs: Codable, Sendable, Hashable {
    /// The stream to be present on (the caller must be allowed to read it).
    public var stream: String
    /// The client's data shown to others.
    public var data: RawJSON?

    /// Makes the arguments.
    public init(stream: String, data: RawJSON? = nil) {
        self.stream = stream
        self.data = data
    }
}

/// Arguments of `presence.leave` and `presence.list`.
public struct PresenceStreamArgs: Codable, Sendable, Hashable {
    /// The stream.
    public var stream: String

    /// Makes the arguments.
    public init(stream: String) { self.stream = stream }
}

/// Where a page of a presence list starts: after the entry that joined at `joinedAt` with
/// `clientId` (the last of the previous page).
public struct PresencePosition: Codable, Sendable, Hashable {
    /// The entry's join time.
    public var joinedAt: Date
    /// The entry's client id.
    public var clientId: String

    /// Makes the position.
    public init(joinedAt: Date, clientId: String) {
        self.joinedAt = joinedAt
        self.clientId = clientId
    }

    /// The position of `entry`.
    public init(_ entry: PresenceEntry) { self.init(joinedAt: entry.joinedAt, clientId: entry.clientId) }
}

/// The arguments of `presence.list`.
public struct PresenceListArgs: Codable, Sendable, Hashable {
    /// The stream.
    public var stream: String
    /// Only the entries after this one: the next page.
    public var after: PresencePosition?
    /// The most entries to return: 1–100, 100 when not given. A shorter page is the last.
    public var limit: Int?

    /// Makes the arguments.
    public init(stream: String, after: PresencePosition? = nil, limit: Int? = nil) {
        self.stream = stream
        self.after = after
        self.limit = limit
    }
}

extension StreamOperation {
    /// Be present on a stream: ``PresenceJoinArgs`` → ``PresenceEntry``; others get `presence.joined`.
    public static let presenceJoin = WireOperation<PresenceJoinArgs, PresenceEntry>("presence.join")
    /// Stop being present: ``PresenceStreamArgs`` → ``EmptyResult``; others get `presence.left`.
    public static let presenceLeave = WireOperation<PresenceStreamArgs, EmptyResult>("presence.leave")
    /// Who is present, a page at a time by join time: ``PresenceListArgs`` → `[PresenceEntry]`.
    public static let presenceList = WireOperation<PresenceListArgs, [PresenceEntry]>("presence.list")
}
