import Foundation

/// The chat operations, sent over the WebSocket by the connected user. Each is documented
/// with its arguments and result in `docs/PROTOCOL.md`.
public enum ChatOperation {
    /// ``ChannelCreateArgs`` → ``ChatChannel``.
    public static let create = WireOperation<ChannelCreateArgs, ChatChannel>("channel.create")
    /// ``ChannelRef`` → ``ChatChannel``: members and invitees may read a channel.
    public static let get = WireOperation<ChannelRef, ChatChannel>("channel.get")
    /// ``ChannelListArgs`` → ``Page`` of ``ChatChannel``: the caller's channels, newest activity first.
    public static let list = WireOperation<ChannelListArgs, Page<ChatChannel>>("channel.list")
    /// ``ChannelUpdateArgs`` → ``ChatChannel``: operators only; replaces name, picture, visibility and extra data.
    public static let update = WireOperation<ChannelUpdateArgs, ChatChannel>("channel.update")
    /// ``ChannelPartialUpdateArgs`` → ``ChatChannel``: operators only; sets and unsets fields.
    public static let partialUpdate = WireOperation<ChannelPartialUpdateArgs, ChatChannel>("channel.partialUpdate")
    /// ``ChannelRef`` → ``EmptyResult``: operators only.
    public static let delete = WireOperation<ChannelRef, EmptyResult>("channel.delete")
    /// ``ChannelRef`` → ``ChatChannelMember``: public channels, or with a pending invitation.
    public static let join = WireOperation<ChannelRef, ChatChannelMember>("channel.join")
    /// ``ChannelRef`` → ``EmptyResult``.
    public static let leave = WireOperation<ChannelRef, EmptyResult>("channel.leave")
    /// ``ChannelUsersArgs`` → `[ChatChannelMember]`: members only; invitees join at once
    /// unless they turned automatic acceptance off.
    public static let invite = WireOperation<ChannelUsersArgs, [ChatChannelMember]>("channel.invite")
    /// ``ChannelRef`` → ``ChatChannelMember``: accepts the caller's pending invitation.
    public static let acceptInvitation = WireOperation<ChannelRef, ChatChannelMember>("channel.acceptInvitation")
    /// ``ChannelRef`` → ``EmptyResult``: declines the caller's pending invitation.
    public static let declineInvitation = WireOperation<ChannelRef, EmptyResult>("channel.declineInvitation")
    /// ``ChannelUsersArgs`` → ``EmptyResult``: operators only; the users must be members.
    public static let addOperators = WireOperation<ChannelUsersArgs, EmptyResult>("channel.addOperators")
    /// ``ChannelUsersArgs`` → ``EmptyResult``: operators only.
    public static let removeOperators = WireOperation<ChannelUsersArgs, EmptyResult>("channel.removeOperators")
    /// ``MemberListArgs`` → ``Page`` of ``ChatChannelMember``: members only.
    public static let members = WireOperation<MemberListArgs, Page<ChatChannelMember>>("channel.members")
    /// ``InvitationPreference`` → ``InvitationPreference``: the caller's own preference.
    public static let setInvitationPreference = WireOperation<InvitationPreference, InvitationPreference>("user.setInvitationPreference")
    /// No arguments → ``InvitationPreference``.
    public static let invitationPreference = WireOperation<EmptyResult, InvitationPreference>("user.invitationPreference")
    /// ``MessageSendArgs`` → ``ChatMessage``: members only; stored before the reply.
    public static let sendMessage = WireOperation<MessageSendArgs, ChatMessage>("message.send")
    /// ``MessageUpdateArgs`` → ``ChatMessage``: the sender only; replaces text and extra data.
    public static let updateMessage = WireOperation<MessageUpdateArgs, ChatMessage>("message.update")
    /// ``MessagePartialUpdateArgs`` → ``ChatMessage``: the sender only.
    public static let partialUpdateMessage = WireOperation<MessagePartialUpdateArgs, ChatMessage>("message.partialUpdate")
    /// ``MessageRef`` → ``ChatMessage``: the sender or an operator.
    public static let deleteMessage = WireOperation<MessageRef, ChatMessage>("message.delete")
    /// ``MessageListArgs`` → ``Page`` of ``ChatMessage``: members only; oldest first; thread
    /// replies are listed by `message.replies` instead; messages of users the caller
    /// blocked are left out (so a page may hold fewer than its limit).
    public static let listMessages = WireOperation<MessageListArgs, Page<ChatMessage>>("message.list")
    /// ``ReactionArgs`` → ``ChatMessage``: members only; one reaction per user and type.
    public static let addReaction = WireOperation<ReactionArgs, ChatMessage>("reaction.add")
    /// ``ReactionArgs`` → ``ChatMessage``: removes the caller's reaction of that type.
    public static let removeReaction = WireOperation<ReactionArgs, ChatMessage>("reaction.remove")
}

/// The arguments of `channel.create`.
public struct ChannelCreateArgs: Codable, Sendable, Hashable {
    /// The channel's id; a random one when `nil`.
    public var id: ChannelId?
    /// The channel's name; defaults to the members' ids.
    public var name: String?
    /// The channel's picture.
    public var coverURL: String?
    /// Whether anyone may join; `false` (invitation only) by default.
    public var isPublic: Bool?
    /// Reuse the existing distinct channel with exactly these members (creator included).
    public var isDistinct: Bool?
    /// The app's own data.
    public var extraData: [String: RawJSON]?
    /// Users to add besides the creator (each as an invitation from the creator, accepted
    /// at once unless the user turned that off).
    public var members: [String]?
    /// Users among the members to make operators (the creator always is one).
    public var operators: [String]?

    /// Makes the arguments.
    public init(id: ChannelId? = nil, name: String? = nil, coverURL: String? = nil, isPublic: Bool? = nil, isDistinct: Bool? = nil,
                extraData: [String: RawJSON]? = nil, members: [String]? = nil, operators: [String]? = nil) {
        self.id = id
        self.name = name
        self.coverURL = coverURL
        self.isPublic = isPublic
        self.isDistinct = isDistinct
        self.extraData = extraData
        self.members = members
        self.operators = operators
    }
}

/// Names a channel.
public struct ChannelRef: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId

    /// Makes the reference.
    public init(channelId: ChannelId) { self.channelId = channelId }
}

/// A channel and users: `channel.invite`, `channel.addOperators`, `channel.removeOperators`.
public struct ChannelUsersArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The users, 1–100.
    public var userIds: [String]

    /// Makes the arguments.
    public init(channelId: ChannelId, userIds: [String]) {
        self.channelId = channelId
        self.userIds = userIds
    }
}

/// The arguments of `channel.list`.
public struct ChannelListArgs: Codable, Sendable, Hashable {
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?
    /// Include channels the caller is only invited to (`true` by default).
    public var includeInvitations: Bool?

    /// Makes the arguments.
    public init(limit: Int? = nil, cursor: String? = nil, includeInvitations: Bool? = nil) {
        self.limit = limit
        self.cursor = cursor
        self.includeInvitations = includeInvitations
    }
}

/// A full channel update (`channel.update`): every field replaces the stored one.
public struct ChannelUpdateArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The new name.
    public var name: String
    /// The new picture; `nil` clears it.
    public var coverURL: String?
    /// The new visibility; unchanged when `nil`.
    public var isPublic: Bool?
    /// The new extra data; `nil` clears it.
    public var extraData: [String: RawJSON]?

    /// Makes the arguments.
    public init(channelId: ChannelId, name: String, coverURL: String? = nil, isPublic: Bool? = nil, extraData: [String: RawJSON]? = nil) {
        self.channelId = channelId
        self.name = name
        self.coverURL = coverURL
        self.isPublic = isPublic
        self.extraData = extraData
    }
}

/// A partial channel update (`channel.partialUpdate`): sets the fields given and removes
/// the names in `unset` (`coverURL`, or extra data keys).
public struct ChannelPartialUpdateArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// A new name.
    public var name: String?
    /// A new picture.
    public var coverURL: String?
    /// A new visibility.
    public var isPublic: Bool?
    /// Extra data keys to set (merged).
    public var extraData: [String: RawJSON]?
    /// Names to remove.
    public var unset: [String]?

    /// Makes the arguments.
    public init(channelId: ChannelId, name: String? = nil, coverURL: String? = nil, isPublic: Bool? = nil,
                extraData: [String: RawJSON]? = nil, unset: [String]? = nil) {
        self.channelId = channelId
        self.name = name
        self.coverURL = coverURL
        self.isPublic = isPublic
        self.extraData = extraData
        self.unset = unset
    }
}

/// Which members a member list returns.
public enum MemberFilter: String, Codable, Sendable, Hashable {
    /// Everyone who joined.
    case all
    /// Operators only.
    case operators
    /// Members who are not operators.
    case nonOperators
    /// Pending invitations.
    case invited
}

/// The arguments of `channel.members`.
public struct MemberListArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// Which members; `all` by default.
    public var filter: MemberFilter?
    /// Page size, 1–100; 20 by default.
    public var limit: Int?
    /// The `next` cursor of the previous page.
    public var cursor: String?

    /// Makes the arguments.
    public init(channelId: ChannelId, filter: MemberFilter? = nil, limit: Int? = nil, cursor: String? = nil) {
        self.channelId = channelId
        self.filter = filter
        self.limit = limit
        self.cursor = cursor
    }
}

/// Whether invitations are accepted without asking (`user.setInvitationPreference`).
public struct InvitationPreference: Codable, Sendable, Hashable {
    /// `true` (the default): an invitation makes the user a member at once. `false`: it
    /// waits until the user accepts or declines.
    public var autoAccept: Bool

    /// Makes the preference.
    public init(autoAccept: Bool) { self.autoAccept = autoAccept }
}

/// The arguments of `message.send`.
public struct MessageSendArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The text, at most 10,000 characters.
    public var text: String
    /// The app's own data, at most 5 KB.
    public var extraData: [String: RawJSON]?
    /// A key (1–128 characters) that makes a resend return the message stored the first
    /// time instead of storing a second one. The SDK makes one per message.
    public var idempotencyKey: String?
    /// Members the message mentions (at most ``Limits/maxMentions``, each a member of the
    /// channel): counted in their unread mentions and pushed to them even where they set
    /// the channel's pushes to mentions only.
    public var mentionedUserIds: [String]?
    /// A message of the channel to quote (not deleted); the message carries its summary.
    public var parentMessageId: String?
    /// A message of the channel to reply to in its thread (not deleted, and not a reply
    /// itself).
    public var threadParentId: String?
    /// Files the sender uploaded for this channel (`POST /v1/files`, complete, not yet
    /// sent), at most ``Limits/maxAttachments``; the message may have empty text then.
    public var attachmentIds: [String]?

    /// Makes the arguments.
    public init(channelId: ChannelId, text: String, extraData: [String: RawJSON]? = nil, idempotencyKey: String? = nil,
                mentionedUserIds: [String]? = nil, parentMessageId: String? = nil, threadParentId: String? = nil,
                attachmentIds: [String]? = nil) {
        self.channelId = channelId
        self.text = text
        self.extraData = extraData
        self.idempotencyKey = idempotencyKey
        self.mentionedUserIds = mentionedUserIds
        self.parentMessageId = parentMessageId
        self.threadParentId = threadParentId
        self.attachmentIds = attachmentIds
    }
}

/// Names a message.
public struct MessageRef: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The message.
    public var messageId: String

    /// Makes the reference.
    public init(channelId: ChannelId, messageId: String) {
        self.channelId = channelId
        self.messageId = messageId
    }
}

/// A full message edit (`message.update`): text and extra data are replaced.
public struct MessageUpdateArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The message.
    public var messageId: String
    /// The new text.
    public var text: String
    /// The new extra data; `nil` clears it.
    public var extraData: [String: RawJSON]?

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String, text: String, extraData: [String: RawJSON]? = nil) {
        self.channelId = channelId
        self.messageId = messageId
        self.text = text
        self.extraData = extraData
    }
}

/// A partial message update (`message.partialUpdate`): sets `text` and extra data keys,
/// removes the extra data keys in `unsetProperties`.
public struct MessagePartialUpdateArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The message.
    public var messageId: String
    /// A new text.
    public var text: String?
    /// Extra data keys to set (merged).
    public var extraData: [String: RawJSON]?
    /// Extra data keys to remove.
    public var unsetProperties: [String]?

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String, text: String? = nil, extraData: [String: RawJSON]? = nil, unsetProperties: [String]? = nil) {
        self.channelId = channelId
        self.messageId = messageId
        self.text = text
        self.extraData = extraData
        self.unsetProperties = unsetProperties
    }
}

/// The arguments of `message.list`: a page of history around a message, oldest first.
public struct MessageListArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// Messages sent before this one (the newest `limit` of them).
    public var before: String?
    /// Messages sent after this one (the oldest `limit` of them).
    public var after: String?
    /// Page size, 1–100; 20 by default.
    public var limit: Int?

    /// Makes the arguments. Without `before` or `after`, the newest messages.
    public init(channelId: ChannelId, before: String? = nil, after: String? = nil, limit: Int? = nil) {
        self.channelId = channelId
        self.before = before
        self.after = after
        self.limit = limit
    }
}

/// The arguments of `reaction.add` and `reaction.remove`.
public struct ReactionArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The message.
    public var messageId: String
    /// The reaction's type, 1–64 characters.
    public var type: String
    /// The app's own data (adding only).
    public var extraData: [String: RawJSON]?

    /// Makes the arguments.
    public init(channelId: ChannelId, messageId: String, type: String, extraData: [String: RawJSON]? = nil) {
        self.channelId = channelId
        self.messageId = messageId
        self.type = type
        self.extraData = extraData
    }
}
