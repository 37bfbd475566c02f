import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// A channel as stored: the channel, its message counter and its distinct key. Sorted by
/// last activity (the last message, or the creation), so a user's channels list newest first.
package struct ChannelRecord: StoredRecord {
    package static let recordKind = "channel"
    package var channel: ChatChannel
    /// The sequence number of the last message sent.
    package var messageSeq: Int64
    /// For a distinct channel, the key of its member set.
    package var distinctKey: String?

    package var recordId: String { channel.id.rawValue }
    package var recordSort: Int64 { Paging.millis(channel.lastMessageAt ?? channel.createdAt) }
}

/// A member of a channel, in the channel's scope; tagged `operator`, `member` or `invited`.
package struct MemberRecord: StoredRecord {
    package static let recordKind = "member"
    package static let joinedTags = ["operator", "member"]
    package var member: ChatChannelMember
    /// Whether the member's ``SentInRecord`` for this channel is known to be stored: only a
    /// member's first message (after a change that stored the member anew) writes it.
    package var sentIn: Bool?
    /// When the member last sent a message, kept while its channel is in slow mode.
    package var lastSentAt: Date?

    package var recordScope: String { member.channelId.rawValue }
    package var recordId: String { member.userId }
    package var recordTag: String {
        switch member.state {
        case .invited: "invited"
        case .joined: member.isOperator ? "operator" : "member"
        }
    }
}

/// The same membership in the user's scope, so that a user's channels can be listed;
/// tagged `joined` or `invited`.
package struct MembershipRecord: StoredRecord {
    package static let recordKind = "membership"
    package var member: ChatChannelMember

    package var recordScope: String { member.userId }
    package var recordId: String { member.channelId.rawValue }
    package var recordTag: String { member.state.rawValue }
}

/// A message, in its channel's scope, sorted by its sequence number; a deleted one is
/// tagged `deleted`, so that unread counts pass it by, and a thread's reply `reply` (or
/// `reply-deleted`), so that the channel's list and counts pass it by.
package struct MessageRecord: StoredRecord {
    package static let recordKind = "message"
    /// The tag of a message of the channel's own list, not deleted.
    package static let liveTag = ""
    /// The tags of the messages of the channel's own list (thread replies are not).
    package static let channelTags = [liveTag, "deleted"]
    package var message: ChatMessage

    package var recordScope: String { message.channelId.rawValue }
    package var recordId: String { message.id }
    package var recordSort: Int64 { message.sequence }
    package var recordTag: String {
        switch (message.isThreadReply, message.isDeleted) {
        case (false, false): Self.liveTag
        case (false, true): "deleted"
        case (true, false): "reply"
        case (true, true): "reply-deleted"
        }
    }
}

/// A mention of a member in a message, in the channel's scope, tagged with the member and
/// sorted by the message's sequence number: a member's unread mentions are counted over
/// them as its unread messages are over the messages. Removed with the message's deletion
/// and the member's departure.
package struct MentionRecord: StoredRecord {
    package static let recordKind = "mention"
    package var channelId: ChannelId
    package var userId: String
    package var messageId: String
    package var sequence: Int64

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { "\(messageId) \(userId)" }
    package var recordSort: Int64 { sequence }
    package var recordTag: String { userId }
}

/// A pinned message, in its channel's scope, sorted by when it was pinned.
package struct PinRecord: StoredRecord {
    package static let recordKind = "pin"
    package var channelId: ChannelId
    package var messageId: String
    package var pinnedAt: Date

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { messageId }
    package var recordSort: Int64 { Paging.millis(pinnedAt) }
}

/// A member's read position, in its channel's scope, sorted by the position: the members
/// who have read a message are those from its sequence number up. Kept while the member
/// belongs to the channel; its unread count is derived (the channel's messages after the
/// position that are not deleted), so a message writes no row per member.
package struct ReadRecord: StoredRecord {
    package static let recordKind = "read"
    package var read: ChannelRead

    package var recordScope: String { read.channelId.rawValue }
    package var recordId: String { read.userId }
    package var recordSort: Int64 { read.lastReadSequence }
}

/// The message a sender's idempotency key stored, in the channel's scope.
package struct MessageKeyRecord: StoredRecord {
    package static let recordKind = "message-key"
    package var channelId: ChannelId
    package var key: String
    package var messageId: String

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { key }

    /// The record id of a sender's key.
    package static func id(sender: String, key: String) -> String { "\(sender)|\(key)" }
}

/// Which channel a distinct member set has.
package struct DistinctChannelRecord: StoredRecord {
    package static let recordKind = "distinct-channel"
    package var key: String
    package var channelId: ChannelId
    /// The member set, to tell a hash collision from a match.
    package var members: [String]

    package var recordId: String { key }

    /// A stable key for a set of user ids: two 64-bit FNV-1a hashes of the sorted ids (the
    /// ids themselves are too long for an index when the set is large).
    package static func key(for members: Set<String>) -> String {
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
package struct ChannelCountRecord: StoredRecord {
    package static let recordKind = "channel-count"
    package var userId: String
    package var count: Int

    package var recordId: String { userId }
}

/// A channel a user has sent messages in, in the user's scope: where its messages are
/// looked for when its deletion erases them (it may have left the channel since).
package struct SentInRecord: StoredRecord {
    package static let recordKind = "sent-in"
    package var userId: String
    package var channelId: ChannelId

    package var recordScope: String { userId }
    package var recordId: String { channelId.rawValue }
}

/// A user's chat preferences.
package struct ChatPreferenceRecord: StoredRecord {
    package static let recordKind = "chat-preference"
    package var userId: String
    package var autoAcceptInvitations: Bool

    package var recordId: String { userId }
}
