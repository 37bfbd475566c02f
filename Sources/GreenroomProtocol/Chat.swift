import Foundation

/// The id of a chat channel: `client.channelController(for: ChannelId("general"))`.
///
/// Travels as a plain string. Ids are 1–128 characters of letters, digits and `_-.@`.
public struct ChannelId: Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The id as a string.
    public var rawValue: String

    /// Makes an id from its string.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Makes an id from a string literal.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// Decodes the id from a string.
    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the id as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The id.
    public var description: String { rawValue }

    /// The channel's event stream, `channel:ID`.
    public var stream: String { StreamKind.channel.stream(rawValue) }
}

/// The chat SDK's name for a user: every model carries its `extraData`.
public typealias ChatUser = User

/// A group channel.
public struct ChatChannel: Codable, Sendable, Hashable, Identifiable {
    /// The channel's id.
    public var id: ChannelId
    /// The channel's name.
    public var name: String
    /// The channel's picture.
    public var coverURL: String?
    /// Whether anyone may join (`true`) or only invited users (`false`).
    public var isPublic: Bool
    /// Whether the channel is reused when a channel is created again for the same members.
    public var isDistinct: Bool
    /// The app's own data about the channel, at most 5 KB, without reserved keys.
    public var extraData: [String: RawJSON]
    /// Who created the channel.
    public var createdBy: String
    /// When the channel was created.
    public var createdAt: Date
    /// When the channel's own fields last changed.
    public var updatedAt: Date
    /// When the last message was sent, if any.
    public var lastMessageAt: Date?
    /// How many users have joined (pending invitations not counted).
    public var memberCount: Int
    /// The reader's own membership, when the reader is a member or invited.
    public var membership: ChatChannelMember?
    /// When an operator froze the channel (only operators send while it is); `nil` when
    /// it is not frozen.
    public var frozenAt: Date?
    /// In slow mode, the seconds a member (not an operator) waits between its messages;
    /// `nil` when off.
    public var slowModeSeconds: Int?

    /// Whether the channel is frozen (Sendbird's `isFrozen`, Stream's `frozen`).
    public var isFrozen: Bool { frozenAt != nil }

    /// Makes a channel.
    public init(id: ChannelId, name: String, coverURL: String? = nil, isPublic: Bool = false, isDistinct: Bool = false,
                extraData: [String: RawJSON] = [:], createdBy: String, createdAt: Date, updatedAt: Date,
                lastMessageAt: Date? = nil, memberCount: Int = 0, membership: ChatChannelMember? = nil) {
        self.id = id
        self.name = name
        self.coverURL = coverURL
        self.isPublic = isPublic
        self.isDistinct = isDistinct
        self.extraData = extraData
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastMessageAt = lastMessageAt
        self.memberCount = memberCount
        self.membership = membership
    }

    /// The channel's event stream.
    public var stream: String { id.stream }
}

/// Whether a member has joined or is invited.
public enum ChatMemberState: String, Codable, Sendable, Hashable {
    /// A member of the channel.
    case joined
    /// Invited, waiting to accept or decline.
    case invited
}

/// A user's membership of a channel.
public struct ChatChannelMember: Codable, Sendable, Hashable, Identifiable {
    /// The member's user id.
    public var userId: String
    /// The channel.
    public var channelId: ChannelId
    /// Joined or invited.
    public var state: ChatMemberState
    /// Whether the member is an operator (may update and delete the channel, add and remove
    /// operators, and delete any message).
    public var isOperator: Bool
    /// Who invited the member, if someone did.
    public var inviterId: String?
    /// When the membership (or invitation) began.
    public var createdAt: Date
    /// The app's own data about the membership.
    public var extraData: [String: RawJSON]
    /// Until when an operator muted the member (it reads, and does not send); `nil` when
    /// not muted, `Date.distantFuture` until unmuted.
    public var mutedUntil: Date?

    /// Whether the member is muted at `date`.
    public func isMuted(at date: Date = Date()) -> Bool { mutedUntil.map { $0 > date } ?? false }

    /// The member's user id.
    public var id: String { userId }

    /// Makes a member.
    public init(userId: String, channelId: ChannelId, state: ChatMemberState, isOperator: Bool = false, inviterId: String? = nil,
                createdAt: Date, extraData: [String: RawJSON] = [:]) {
        self.userId = userId
        self.channelId = channelId
        self.state = state
        self.isOperator = isOperator
        self.inviterId = inviterId
        self.createdAt = createdAt
        self.extraData = extraData
    }
}

/// A reaction of one user to a message.
public struct ChatReaction: Codable, Sendable, Hashable {
    /// The reaction's type, e.g. `like` (1–64 characters).
    public var type: String
    /// Who reacted.
    public var userId: String
    /// The app's own data about the reaction.
    public var extraData: [String: RawJSON]
    /// When the reaction was added (or last changed).
    public var createdAt: Date

    /// Makes a reaction.
    public init(type: String, userId: String, extraData: [String: RawJSON] = [:], createdAt: Date) {
        self.type = type
        self.userId = userId
        self.extraData = extraData
        self.createdAt = createdAt
    }
}

/// A message in a channel.
public struct ChatMessage: Codable, Sendable, Hashable, Identifiable {
    /// The message's id: the server makes it from the millisecond it stores the message
    /// and 80 random bits, so ids sort by the time made.
    public var id: String
    /// The channel.
    public var channelId: ChannelId
    /// Who sent it.
    public var senderId: String
    /// Its text, at most 10,000 characters; empty once deleted.
    public var text: String
    /// The app's own data, at most 5 KB, without reserved keys; empty once deleted.
    public var extraData: [String: RawJSON]
    /// Its place in the channel's history (1, 2, 3, …).
    public var sequence: Int64
    /// When it was sent.
    public var createdAt: Date
    /// When it last changed (edited, reacted to, deleted).
    public var updatedAt: Date
    /// When it was deleted; a deleted message keeps its place in the history.
    public var deletedAt: Date?
    /// Reactions, one per user and type, oldest first.
    public var reactions: [ChatReaction]
    /// The members the message mentions (Stream's `mentionedUsers`), as they were members
    /// when it was sent; `nil` when none, and once deleted.
    public var mentionedUserIds: [String]?
    /// When an operator pinned it; `nil` when not pinned.
    public var pinnedAt: Date?
    /// The operator who pinned it.
    public var pinnedBy: String?
    /// The message it quotes (Sendbird's `parentMessageId`, Stream's `quotedMessageId`).
    public var parentMessageId: String?
    /// What it shows of the message it quotes.
    public var quotedMessage: QuotedMessage?
    /// The thread it is a reply in: its parent message. A reply is listed by
    /// `message.replies`, not `message.list`, and is not counted in the channel's unread
    /// messages but in the thread's unread replies.
    public var threadParentId: String?
    /// On a thread's parent: its replies that are not deleted; `nil` before the first.
    public var replyCount: Int?
    /// On a thread's parent: when the newest reply that is not deleted was sent.
    public var lastReplyAt: Date?
    /// On a thread's parent: the latest repliers, the latest first (at most
    /// ``Limits/maxLatestRepliers``).
    public var latestReplierIds: [String]?
    /// The files it carries (images with their size and thumbnail), in the order sent;
    /// `nil` when none, and once deleted (the files are removed).
    public var attachments: [ChatAttachment]?
    /// Set by the SDK on its own copy of a message that a queued action changed and the
    /// server has not confirmed (a client with a local store): `pending` until it is
    /// sent, `failed` when the server refused it (``localError`` says why). `nil` on the
    /// server's copy: the message as stored. The server never sends it.
    public var localState: LocalMessageState?
    /// Why the server refused the queued action of a `failed` message.
    public var localError: GreenroomError?

    /// Makes a message.
    public init(id: String, channelId: ChannelId, senderId: String, text: String, extraData: [String: RawJSON] = [:],
                sequence: Int64, createdAt: Date, updatedAt: Date, deletedAt: Date? = nil, reactions: [ChatReaction] = [],
                mentionedUserIds: [String]? = nil) {
        self.id = id
        self.channelId = channelId
        self.senderId = senderId
        self.text = text
        self.extraData = extraData
        self.sequence = sequence
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.deletedAt = deletedAt
        self.reactions = reactions
        self.mentionedUserIds = mentionedUserIds
    }

    /// Whether the message was deleted.
    public var isDeleted: Bool { deletedAt != nil }

    /// Whether the message is a reply in a thread.
    public var isThreadReply: Bool { threadParentId != nil }

    /// How many reactions of each type the message has.
    public var reactionCounts: [String: Int] {
        reactions.reduce(into: [:]) { counts, reaction in counts[reaction.type, default: 0] += 1 }
    }
}

/// Where the SDK's copy of a message stands against the server (``ChatMessage/localState``).
public enum LocalMessageState: String, Codable, Sendable, Hashable {
    /// Queued: shown at once, sent when the connection allows.
    case pending
    /// The server refused the queued action; retry or discard it.
    case failed
}

/// An event on a channel's stream (`channel:ID`), or about a channel on a user's private
/// stream; its `type` names which fields are set.
///
/// | type | on | fields |
/// | --- | --- | --- |
/// | `message.new`, `message.updated`, `message.deleted` | channel | message (and thread, for a reply) |
/// | `reaction.new`, `reaction.deleted` | channel | message, reaction |
/// | `member.joined`, `member.left`, `member.invited`, `invitation.declined` | channel | member |
/// | `member.muted`, `member.unmuted` | channel | member |
/// | `member.banned`, `member.unbanned` | channel | ban |
/// | `operators.added`, `operators.removed` | channel | userIds |
/// | `channel.updated` | channel | channel |
/// | `channel.deleted` | channel and members' user streams | channelId |
/// | `channel.invited` (pending), `channel.added` (joined) | the user's stream | channel, member |
/// | `message.read`, `message.delivered` | channel | read, or reads (batched in a big channel) |
/// | `notification.readChanged` | the user's stream | read, with the unread counts |
/// | `notification.threadReadChanged` | the user's stream | thread |
public struct ChatEvent: Codable, Sendable, Hashable {
    /// The event's type (the stream event's type).
    public var type: String
    /// The channel the event is about.
    public var channelId: ChannelId
    /// The channel, for channel-wide changes.
    public var channel: ChatChannel?
    /// The message, for message and reaction events.
    public var message: ChatMessage?
    /// The reaction, for reaction events.
    public var reaction: ChatReaction?
    /// The member, for membership events.
    public var member: ChatChannelMember?
    /// The users, for operator events.
    public var userIds: [String]?
    /// Who did it.
    public var actorId: String?
    /// The member's read position, for `message.read`, `message.delivered` and
    /// `notification.readChanged`.
    public var read: ChannelRead?
    /// Several members' positions, for `message.read` and `message.delivered` batched in a
    /// big channel (at most one event a second per channel on each node).
    public var reads: [ChannelRead]?
    /// The thread's counts after the change, for a reply's `message.new` and
    /// `message.deleted`, and `notification.threadReadChanged`.
    public var thread: ChatThread?
    /// The ban, for `member.banned` and `member.unbanned`.
    public var ban: ChannelBan?

    /// Makes an event.
    public init(type: String, channelId: ChannelId, channel: ChatChannel? = nil, message: ChatMessage? = nil,
                reaction: ChatReaction? = nil, member: ChatChannelMember? = nil, userIds: [String]? = nil, actorId: String? = nil,
                read: ChannelRead? = nil, reads: [ChannelRead]? = nil, thread: ChatThread? = nil, ban: ChannelBan? = nil) {
        self.type = type
        self.ban = ban
        self.channelId = channelId
        self.channel = channel
        self.message = message
        self.reaction = reaction
        self.member = member
        self.userIds = userIds
        self.actorId = actorId
        self.read = read
        self.reads = reads
        self.thread = thread
    }

    /// Reads a chat event from a stream event; `nil` when it is not one.
    public init?(_ event: StreamEvent) {
        guard var decoded = try? event.data.decode(as: ChatEvent.self) else { return nil }
        decoded.type = event.type
        self = decoded
    }
}

/// The chat event types.
public enum ChatEventType {
    /// A message was sent.
    public static let messageNew = "message.new"
    /// A message was edited.
    public static let messageUpdated = "message.updated"
    /// A message was deleted.
    public static let messageDeleted = "message.deleted"
    /// A reaction was added.
    public static let reactionNew = "reaction.new"
    /// A reaction was removed.
    public static let reactionDeleted = "reaction.deleted"
    /// A user joined (by joining, accepting, or an automatically accepted invitation).
    public static let memberJoined = "member.joined"
    /// A member left.
    public static let memberLeft = "member.left"
    /// An operator muted a member (``ChatEvent/member`` with `mutedUntil`).
    public static let memberMuted = "member.muted"
    /// An operator unmuted a member.
    public static let memberUnmuted = "member.unmuted"
    /// An operator banned a user (``ChatEvent/ban``); a member banned is removed, and
    /// stops reading the channel with this event.
    public static let memberBanned = "member.banned"
    /// An operator lifted a ban.
    public static let memberUnbanned = "member.unbanned"
    /// A user was invited and has not accepted yet.
    public static let memberInvited = "member.invited"
    /// An invitee declined.
    public static let invitationDeclined = "invitation.declined"
    /// Members became operators.
    public static let operatorsAdded = "operators.added"
    /// Operators became plain members.
    public static let operatorsRemoved = "operators.removed"
    /// The channel's name, picture, visibility or extra data changed.
    public static let channelUpdated = "channel.updated"
    /// The channel was deleted.
    public static let channelDeleted = "channel.deleted"
    /// On a user's stream: the user was invited to a channel.
    public static let channelInvited = "channel.invited"
    /// On a user's stream: the user was added to a channel.
    public static let channelAdded = "channel.added"
}
