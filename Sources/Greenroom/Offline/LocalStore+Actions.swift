import Foundation
import GreenroomProtocol
import SQLiteNIO

/// An action a client with a local store queued: kept in the store, in order, until the
/// server took it (then it is gone) or refused it (then it stays `failed` until the app
/// retries or discards it).
public struct QueuedAction: Sendable, Hashable, Identifiable {
    /// What the action does.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `message.send`: the message shows at once with `localState` `pending`.
        case sendMessage = "message.send"
        /// `message.update`.
        case editMessage = "message.update"
        /// `message.delete`.
        case deleteMessage = "message.delete"
        /// `reaction.add`.
        case addReaction = "reaction.add"
        /// `reaction.remove`.
        case removeReaction = "reaction.remove"
        /// `channel.markRead`.
        case markRead = "channel.markRead"
    }

    /// Whether the action waits to be sent or was refused.
    public enum State: String, Sendable, Hashable {
        /// Waiting for the connection, or being sent.
        case pending
        /// The server refused it (``QueuedAction/error``); later actions went on.
        case failed
    }

    /// Its place in the queue: actions are sent in this order.
    public let id: Int64
    /// What it does.
    public let kind: Kind
    /// The channel it acts on.
    public let channelId: ChannelId
    /// The message it acts on: for a send, the id of the local copy (`local-…`).
    public let messageId: String?
    /// Pending or failed.
    public var state: State
    /// Why the server refused it, when `failed`.
    public var error: GreenroomError?
    /// When it was queued.
    public let createdAt: Date
    /// The command's arguments as sent.
    let args: RawJSON
}

extension LocalStore {
    /// Appends an action to the queue, and applies its local copy of a message (shown at
    /// once) in the same transaction. `message` makes that copy from the action's id.
    func enqueue(_ kind: QueuedAction.Kind, channel: ChannelId, messageId: String?, args: RawJSON,
                 message: (@Sendable (Int64) -> ChatMessage)?) async throws -> QueuedAction {
        let encoded = try Self.text(args)
        let now = Date()
        let id = try await transaction { db in
            _ = try await db.query("""
                INSERT INTO actions (kind, channel, message, args, state, created) VALUES (?, ?, ?, ?, 'pending', ?)
                """, [.text(kind.rawValue), .text(channel.rawValue), messageId.map { .text($0) } ?? .null, encoded, .float(now.timeIntervalSince1970)])
            let id = Int64(try await db.lastAutoincrementID())
            if let copy = message?(id) { try await Self.upsert(copy, db) }
            return id
        }
        return QueuedAction(id: id, kind: kind, channelId: channel, messageId: messageId, state: .pending, error: nil, createdAt: now, args: args)
    }

    /// Every queued action, oldest first.
    func actions() async throws -> [QueuedAction] {
        try await serially { db in
            try await db.query("SELECT id, kind, channel, message, args, state, error, created FROM actions ORDER BY id").compactMap(Self.action)
        }
    }

    /// The oldest pending action.
    func nextPendingAction() async throws -> QueuedAction? {
        try await serially { db in
            try await db.query("SELECT id, kind, channel, message, args, state, error, created FROM actions WHERE state = 'pending' ORDER BY id LIMIT 1")
                .first.flatMap(Self.action)
        }
    }

    /// The action with `id`, if it is still queued.
    func action(_ id: Int64) async throws -> QueuedAction? {
        try await serially { db in
            try await db.query("SELECT id, kind, channel, message, args, state, error, created FROM actions WHERE id = ?", [.integer(Int(id))])
                .first.flatMap(Self.action)
        }
    }

    /// Ends an action the server took, and keeps the message it returned in place of the
    /// local copy, in one transaction.
    func completeAction(_ id: Int64, message: ChatMessage?, replacing localId: String?) async throws {
        try await transaction { db in
            _ = try await db.query("DELETE FROM actions WHERE id = ?", [.integer(Int(id))])
            guard let message else { return }
            if let localId, localId != message.id {
                _ = try await db.query("DELETE FROM messages WHERE channel = ? AND id = ?", [.text(message.channelId.rawValue), .text(localId)])
            }
            guard message.threadParentId == nil else { return }
            // Only where the channel is kept, and never over a newer copy an event brought.
            _ = try await db.query("""
                INSERT INTO messages (channel, id, sequence, body) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM channels WHERE id = ?)
                ON CONFLICT (channel, id) DO UPDATE SET sequence = excluded.sequence, body = excluded.body
                """, [.text(message.channelId.rawValue), .text(message.id), .integer(Int(message.sequence)), try Self.text(message),
                      .text(message.channelId.rawValue)])
        }
    }

    /// Marks an action refused (with `error`) or pending again (without), and rewrites its
    /// local copy of a message to match, in one transaction.
    func setAction(_ id: Int64, failedWith error: GreenroomError?, copy: ChatMessage?) async throws {
        let encoded = try error.map(Self.text) ?? .null
        try await transaction { db in
            _ = try await db.query("UPDATE actions SET state = ?, error = ? WHERE id = ?",
                                   [.text(error == nil ? QueuedAction.State.pending.rawValue : QueuedAction.State.failed.rawValue), encoded, .integer(Int(id))])
            if let copy {
                _ = try await db.query("UPDATE messages SET body = ? WHERE channel = ? AND id = ?",
                                       [try Self.text(copy), .text(copy.channelId.rawValue), .text(copy.id)])
            }
        }
    }

    /// Removes an action, and the local copy of the message it would have sent.
    func discardAction(_ id: Int64, localMessage: (channel: ChannelId, id: String)?) async throws {
        try await transaction { db in
            _ = try await db.query("DELETE FROM actions WHERE id = ?", [.integer(Int(id))])
            if let localMessage {
                _ = try await db.query("DELETE FROM messages WHERE channel = ? AND id = ?", [.text(localMessage.channel.rawValue), .text(localMessage.id)])
            }
        }
    }

    /// One stored message of a channel.
    func message(_ id: String, in channel: ChannelId) async throws -> ChatMessage? {
        try await serially { db in
            try await db.query("SELECT body FROM messages WHERE channel = ? AND id = ?", [.text(channel.rawValue), .text(id)])
                .first.flatMap { Self.decode(ChatMessage.self, $0, "body") }
        }
    }

    private static func action(_ row: SQLiteRow) -> QueuedAction? {
        guard let id = row.column("id")?.integer, let kind = row.column("kind")?.string.flatMap(QueuedAction.Kind.init(rawValue:)),
              let channel = row.column("channel")?.string, let args = decode(RawJSON.self, row, "args"),
              let state = row.column("state")?.string.flatMap(QueuedAction.State.init(rawValue:)) else { return nil }
        return QueuedAction(id: Int64(id), kind: kind, channelId: ChannelId(channel), messageId: row.column("message")?.string,
                            state: state, error: decode(GreenroomError.self, row, "error"),
                            createdAt: Date(timeIntervalSince1970: row.column("created")?.double ?? 0), args: args)
    }
}
