import Foundation

extension UserOperation {
    /// ``UserPresenceArgs`` → `[`` UserPresence ``]`: whether each user is connected to any
    /// node, and when it was last active (Stream's `user.online`, `user.lastActiveAt`).
    public static let presence = WireOperation<UserPresenceArgs, [UserPresence]>("user.presence")
}

/// The signal of a user's online state.
public enum OnlineSignal {
    /// A user came online (its first connection to any node) or went offline (its last
    /// connection closed, or its node stopped answering): a signal with a
    /// ``UserPresence`` on the streams of the channels it has joined (its 100 most recently
    /// active) that have at most ``Limits/maxPresenceSignalMembers`` members, never
    /// stored, never replayed. Bigger channels ask `user.presence` instead: everyone of
    /// 10,000 members coming online would be 100 million signals.
    public static let presenceChanged = "user.presenceChanged"
}

extension Limits {
    /// The most channels a user's online state is relayed to: its most recently active.
    public static let maxPresenceChannels = 100
    /// The most members a channel may have to hear its members' online state as signals.
    public static let maxPresenceSignalMembers = 100
}

/// A user's online state.
public struct UserPresence: Codable, Sendable, Hashable, Identifiable {
    /// The user.
    public var userId: String
    /// Whether it holds a connection to any node.
    public var online: Bool
    /// When it last connected or disconnected; `nil` when never seen.
    public var lastActiveAt: Date?

    /// The user's id.
    public var id: String { userId }

    /// Makes a presence.
    public init(userId: String, online: Bool, lastActiveAt: Date? = nil) {
        self.userId = userId
        self.online = online
        self.lastActiveAt = lastActiveAt
    }
}

/// The arguments of `user.presence`.
public struct UserPresenceArgs: Codable, Sendable, Hashable {
    /// The users, 1–100.
    public var userIds: [String]

    /// Makes the arguments.
    public init(userIds: [String]) { self.userIds = userIds }
}
