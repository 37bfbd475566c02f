import Foundation

extension ChatOperation {
    /// ``UserRef`` → ``BlockedUser``: the caller blocks a user (at most
    /// ``Limits/maxBlockedUsers``): the user's messages are left out of what the caller
    /// lists, and no distinct channel or invitation joins the two (`userBlocked`).
    /// Blocking again keeps the first block.
    public static let block = WireOperation<UserRef, BlockedUser>("user.block")
    /// ``UserRef`` → ``EmptyResult``: the caller unblocks a user.
    public static let unblock = WireOperation<UserRef, EmptyResult>("user.unblock")
    /// ``BlockedUsersArgs`` → ``Page`` of ``BlockedUser``: the users the caller blocked, by
    /// user id.
    public static let blockedUsers = WireOperation<BlockedUsersArgs, Page<BlockedUser>>("user.blockedUsers")
}

extension Limits {
    /// The most users one user may block.
    public static let maxBlockedUsers = 1_000
    /// The most words of the app's blocklist.
    public static let maxBlocklistWords = 1_000
    /// The longest word of the app's blocklist, in characters.
    public static let maxBlocklistWordLength = 64
}

/// Names a user.
public struct UserRef: Codable, Sendable, Hashable {
    /// The user.
    public var userId: String

    /// Makes the reference.
    public init(userId: String) { self.userId = userId }
}

/// A user the caller blocked.
public struct BlockedUser: Codable, Sendable, Hashable {
    /// The user blocked.
    public var userId: String
    /// When.
    public var createdAt: Date

    /// Makes the entry.
    public init(userId: String, createdAt: Date) {
        self.userId = userId
        self.createdAt = createdAt
    }
}

/// The arguments of `user.blockedUsers`.
public struct BlockedUsersArgs: Codable, Sendable, Hashable {
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(limit: Int? = nil, cursor: String? = nil) {
        self.limit = limit
        self.cursor = cursor
    }
}

/// What a message whose text holds a blocklisted word gets.
public enum BlocklistAction: String, Codable, Sendable, Hashable, CaseIterable {
    /// The message is refused with `messageBlocked`.
    case refuse
    /// The message is stored with each blocklisted word replaced by asterisks.
    case mask
}

/// The app's blocklist: words that a message's text may not hold, checked by the server
/// on every send and edit. A word matches a whole word of the text, whatever its case and
/// accents.
public struct Blocklist: Codable, Sendable, Hashable {
    /// The words, at most ``Limits/maxBlocklistWords`` of at most
    /// ``Limits/maxBlocklistWordLength`` characters, each one word (letters and digits).
    public var words: [String]
    /// What a message that holds one gets.
    public var action: BlocklistAction

    /// Makes a blocklist.
    public init(words: [String], action: BlocklistAction) {
        self.words = words
        self.action = action
    }
}

/// A user banned from the whole app by its backend: its connections were closed on every
/// node and its tokens are refused with `userBanned` until the ban ends.
public struct UserBan: Codable, Sendable, Hashable {
    /// The user banned.
    public var userId: String
    /// Why, as the backend said.
    public var reason: String?
    /// When.
    public var createdAt: Date
    /// When the ban ends; `nil` until it is lifted.
    public var expiresAt: Date?

    /// Makes a ban.
    public init(userId: String, reason: String? = nil, createdAt: Date, expiresAt: Date? = nil) {
        self.userId = userId
        self.reason = reason
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Whether the ban holds at `date`.
    public func isActive(at date: Date = Date()) -> Bool { expiresAt.map { $0 > date } ?? true }
}

/// The body of an app-wide ban (`POST /v1/users/{id}/ban`).
public struct UserBanArgs: Codable, Sendable, Hashable {
    /// How long, 1–``Limits/maxMuteSeconds``; until lifted when `nil`.
    public var seconds: Int?
    /// Why (at most ``Limits/maxReasonLength`` characters).
    public var reason: String?

    /// Makes the arguments.
    public init(seconds: Int? = nil, reason: String? = nil) {
        self.seconds = seconds
        self.reason = reason
    }
}
