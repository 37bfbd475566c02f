import Foundation

/// A user of the app, as the server stores it.
public struct User: Codable, Sendable, Hashable, Identifiable {
    /// The user's id (1–128 characters of letters, digits and `_-.@`).
    public var id: String
    /// The name shown to others.
    public var nickname: String
    /// The user's picture.
    public var profileURL: String?
    /// The app's own data about the user, at most 5 KB, without reserved keys.
    public var extraData: [String: RawJSON]
    /// When the user was created.
    public var createdAt: Date
    /// When the user last changed.
    public var updatedAt: Date

    /// Makes a user.
    public init(id: String, nickname: String, profileURL: String? = nil, extraData: [String: RawJSON] = [:], createdAt: Date, updatedAt: Date) {
        self.id = id
        self.nickname = nickname
        self.profileURL = profileURL
        self.extraData = extraData
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// Arguments of `user.get`.
public struct UserGetArgs: Codable, Sendable, Hashable {
    /// The user's id.
    public var id: String

    /// Makes the arguments.
    public init(id: String) { self.id = id }
}

/// Filters and paging of a user list (`user.list`, REST `GET /v1/users`).
public struct UserListArgs: Codable, Sendable, Hashable {
    /// Only these ids.
    public var ids: [String]?
    /// Only users whose nickname starts with this (case-insensitive).
    public var nicknamePrefix: String?
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(ids: [String]? = nil, nicknamePrefix: String? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.ids = ids
        self.nicknamePrefix = nicknamePrefix
        self.limit = limit
        self.cursor = cursor
    }
}

/// A user's creation (REST `POST /v1/users`) or full update (`user.update`, REST `PUT`):
/// every field given replaces the stored one, and extra data is replaced whole.
public struct UserUpdateArgs: Codable, Sendable, Hashable {
    /// The id; required on creation, ignored on update.
    public var id: String?
    /// The name shown to others; defaults to the id on creation.
    public var nickname: String?
    /// The user's picture; `nil` clears it on a full update.
    public var profileURL: String?
    /// The app's own data; `nil` clears it on a full update.
    public var extraData: [String: RawJSON]?

    /// Makes the arguments.
    public init(id: String? = nil, nickname: String? = nil, profileURL: String? = nil, extraData: [String: RawJSON]? = nil) {
        self.id = id
        self.nickname = nickname
        self.profileURL = profileURL
        self.extraData = extraData
    }
}

/// A partial update (`user.partialUpdate`, REST `PATCH /v1/users/{id}`): sets the fields
/// given in `set` (extra data key by key) and removes the names in `unset`.
public struct UserPartialUpdateArgs: Codable, Sendable, Hashable {
    /// What to set. Extra data keys are merged into the stored extra data.
    public var set: UserPartialSet?
    /// What to remove: `profileURL`, or extra data keys.
    public var unset: [String]?

    /// Makes the arguments.
    public init(set: UserPartialSet? = nil, unset: [String]? = nil) {
        self.set = set
        self.unset = unset
    }
}

/// The fields a partial user update may set.
public struct UserPartialSet: Codable, Sendable, Hashable {
    /// A new nickname.
    public var nickname: String?
    /// A new picture.
    public var profileURL: String?
    /// Extra data keys to set (merged).
    public var extraData: [String: RawJSON]?

    /// Makes the set.
    public init(nickname: String? = nil, profileURL: String? = nil, extraData: [String: RawJSON]? = nil) {
        self.nickname = nickname
        self.profileURL = profileURL
        self.extraData = extraData
    }
}
