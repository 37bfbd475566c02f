import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// Where a thread's own records live: its channel and parent message (`#` is in no
/// channel id, so two threads never share a scope).
package func threadScope(_ channel: ChannelId, _ parentId: String) -> String { "\(channel.rawValue)#\(parentId)" }

/// A thread of a channel, in the channel's scope, sorted by its first reply: what the
/// channel's deletion finds to remove the threads' own records.
package struct ThreadRecord: StoredRecord {
    package static let recordKind = "thread"
    package var channelId: ChannelId
    package var parentId: String
    package var createdAt: Date

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { parentId }
    package var recordSort: Int64 { Paging.millis(createdAt) }
}

/// A reply in a thread, in the thread's scope, sorted by its sequence number and tagged
/// like its message (`` or `deleted`): the thread's own index, so that its replies are
/// listed and its unread replies counted without passing over the channel's messages.
package struct ThreadReplyRecord: StoredRecord {
    package static let recordKind = "reply"
    package var channelId: ChannelId
    package var parentId: String
    package var messageId: String
    package var senderId: String
    package var sequence: Int64
    package var createdAt: Date
    package var deleted: Bool

    package init(_ reply: ChatMessage, parentId: String) {
        channelId = reply.channelId
        self.parentId = parentId
        messageId = reply.id
        senderId = reply.senderId
        sequence = reply.sequence
        createdAt = reply.createdAt
        deleted = reply.isDeleted
    }

    package var recordScope: String { threadScope(channelId, parentId) }
    package var recordId: String { messageId }
    package var recordSort: Int64 { sequence }
    package var recordTag: String { deleted ? "deleted" : MessageRecord.liveTag }
}

/// A member taking part in a thread, with its read position there, in the thread's
/// scope, sorted by when it began to.
package struct ThreadParticipantRecord: StoredRecord {
    package static let recordKind = "thread-participant"
    package var channelId: ChannelId
    package var parentId: String
    package var participant: ThreadParticipant

    package var recordScope: String { threadScope(channelId, parentId) }
    package var recordId: String { participant.userId }
    package var recordSort: Int64 { Paging.millis(participant.joinedAt) }
}

/// A thread a user takes part in, in the user's scope, sorted by when it began to and
/// tagged with the channel (whose departure removes it).
package struct UserThreadRecord: StoredRecord {
    package static let recordKind = "user-thread"
    package var userId: String
    package var channelId: ChannelId
    package var parentId: String
    package var joinedAt: Date

    package var recordScope: String { userId }
    package var recordId: String { threadScope(channelId, parentId) }
    package var recordSort: Int64 { Paging.millis(joinedAt) }
    package var recordTag: String { channelId.rawValue }
}

/// A message quoting another, in the channel's scope, tagged with the quoted message:
/// what keeps the quotes' summaries current when the quoted message changes or goes.
package struct QuoteRecord: StoredRecord {
    package static let recordKind = "quote"
    package var channelId: ChannelId
    package var quotedId: String
    package var quotingId: String

    package var recordScope: String { channelId.rawValue }
    package var recordId: String { "\(quotedId) \(quotingId)" }
    package var recordTag: String { quotedId }
}
