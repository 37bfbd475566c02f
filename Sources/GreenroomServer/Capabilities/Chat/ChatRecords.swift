import Foundation
import GreenroomProtocol

/// A channel as stored: the channel, its message counter and its distinct key. Sorted by
/// last activity (the last message, or the creation), so a user's channels list newest first.
struct ChannelRecord: StoredRecord {
    static let recordKind = "channel"
    var channel: ChatChannel
    /// The sequence number of the last message sent.
    var messageSeq: Int64
    /// For a distinct channel, the key of its member set.
    var distinctKey: String?

    var recordId: String { channel.id.rawValue }
    var recordSort: Int64 { Paging.millis(channel.lastMessageAt ?? channel.createdAt) }
}

/// A member of a channel, in the channel's scope; tagged `operator`, `member` or `invited`.
struct MemberRecord: StoredRecord {
    static let recordKind = "member"
    static let joinedTags = ["operator", "member"]
    var member: ChatChannelMember
    /// Whether the member's ``SentInRecord`` for this channel is known to be stored: only a
    /// member's first message (after a change that stored the member anew) writes it.
    var sentIn: Bool?

    var recordScope: String { member.channelId.rawValue }
    var recordId: String { member.userId }
    var recordTag: String {
        switch member.state {
        case .invited: "invited"
        case .joined: member.isOperator ? "operator" : "member"
        }
    }
}

/// The same membership in the user's scope, so that a user's channels can be listed;
/// tagged `joined` or `invited`.
struct MembershipRecord: StoredRecord {
    static let recordKind = "membership"
    var member: ChatChannelMember

    var recordScope: String { member.userId }
    var recordId: String { member.channelId.rawValue }
    var recordTag: String { member.state.rawValue }
}

/// A message, in its channel's scope, sorted by its sequence number.
struct MessageRecord: StoredRecord {
    static let recordKind = "message"
    var message: ChatMessage

    var recordScope: String { message.channelId.rawValue }
    var recordId: String { message.id }
    var recordSort: Int64 { message.sequence }
}

/// The message a sender's idempotency key stored, in the channel's scope.
struct MessageKeyRecord: StoredRecord {
    static let recordKind = "message-key"
    var channelId: ChannelId
    var key: String
    var messageId: String

    var recordScope: String { channelId.rawValue }
    var recordId: String { key }

    /// The record id of a sender's key.
    static func id(sender: String, key: String) -> String { "\(sender)|\(key)" }
}

/// Which channel a distinct member set has.
struct DistinctChannelRecord: StoredRecord {
    static let recordKind = "distinct-channel"
    var key: String
    var channelId: ChannelId
    /// The member set, to tell a hash collision from a match.
    var members: [String]

    var recordId: String { key }

    /// A stable key for a set of user ids: two 64-bit FNV-1a hashes of the sorted ids (the
    /// ids themselves are too long for an index when the set is large).
    static func key(for members: Set<String>) -> String {
        let text = members.sorted().joined(separator: "\u{0}")
        func fnv(_ seed: UInt64) -> UInt64 {
            var hash = seed
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            return hash
        }
        return String(fnv(0xcbf2_9ce4_8422_2325), radix: 16) + String(fnv(0x8422_2325_cbf2_9ce4), radix: 16) + "-\(members.count)"
    }
}

/// How many channels a user has created that still exist: a user may create only so many.
struct ChannelCountRecord: StoredRecord {
    static let recordKind = "channel-count"
    var userId: String
    var count: Int

    var recordId: String { userId }
}

/// A channel a user has sent messages in, in the user's scope: where its messages are
/// looked for when its deletion erases them (it may have left the channel since).
struct SentInRecord: StoredRecord {
    static let recordKind = "sent-in"
    var userId: String
    var channelId: ChannelId

    var recordScope: String { userId }
    var recordId: String { channelId.rawValue }
}

/// A user's chat preferences.
struct ChatPreferenceRecord: StoredRecord {
    static let recordKind = "chat-preference"
    var userId: String
    var autoAcceptInvitations: Bool

    var recordId: String { userId }
}
