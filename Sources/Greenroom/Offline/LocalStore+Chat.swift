import Foundation
import GreenroomProtocol
import SQLiteNIO

/// What the store holds of one channel.
struct StoredChannel: Sendable {
    var channel: ChatChannel
    var reads: [ChannelRead]
    var unreadCount: Int
    /// Its messages, oldest first: the newest the limits keep, then the pending ones.
    var messages: [ChatMessage]
    /// The position of the channel's stream the stored state reflects.
    var position: StreamPosition?
}

/// A change of one channel's stored state, written in one transaction.
struct ChannelChange: Sendable {
    var channel: ChatChannel?
    /// Messages to add or replace (thread replies are not kept).
    var messages: [ChatMessage] = []
    /// Messages to remove (local copies the server's replaced).
    var removing: [String] = []
    /// Whether every stored message of the channel is replaced by `messages`.
    var replacesMessages = false
    var reads: [ChannelRead]?
    var unreadCount: Int?
    /// The stream position the state reflects after this change.
    var position: StreamPosition?
}

extension LocalStore {
    /// Where pending messages sort: after every stored message, in queue order.
    static let pendingSequenceBase: Int64 = 1 << 62

    /// The id of the local copy of a queued message.
    static func localMessageId(_ idempotencyKey: String) -> String { "local-" + idempotencyKey }

    /// Whether `messageId` is a local copy's, of a message the server does not have yet.
    static func isLocal(_ messageId: String) -> Bool { messageId.hasPrefix("local-") }

    // MARK: Reading

    /// The channels of the user's list (joined or invited), the most recently active first.
    func listedChannels(limit: Int) async throws -> [ChatChannel] {
        try await serially { db in
            try await db.query("SELECT body FROM channels WHERE listed = 1 ORDER BY activity DESC, id DESC LIMIT ?", [.integer(max(0, limit))])
                .compactMap { Self.decode(ChatChannel.self, $0, "body") }
        }
    }

    /// One channel as stored, with its messages and the position they reflect.
    func storedChannel(_ id: ChannelId) async throws -> StoredChannel? {
        try await serially { db in
            guard let row = try await db.query("SELECT body, reads, unread FROM channels WHERE id = ?", [.text(id.rawValue)]).first,
                  let channel = Self.decode(ChatChannel.self, row, "body") else { return nil }
            let messages = try await db.query("SELECT body FROM messages WHERE channel = ? ORDER BY sequence", [.text(id.rawValue)])
                .compactMap { Self.decode(ChatMessage.self, $0, "body") }
            let position = try await Self.position(of: id.stream, db)
            return StoredChannel(channel: channel, reads: Self.decode([ChannelRead].self, row, "reads") ?? [],
                                 unreadCount: Int(row.column("unread")?.integer ?? 0), messages: messages, position: position)
        }
    }

    // MARK: Writing

    /// Keeps the first page of the user's channel list (every one listed), then drops the
    /// channels past the limit. When the page is the whole list (`complete`), the channels
    /// kept that are not in it are removed with their messages: the user is no longer in
    /// them.
    func saveListedChannels(_ channels: [ChatChannel], complete: Bool) async throws {
        let limit = limits.channels
        let removed = try await transaction { db in
            for channel in channels { try await Self.upsert(channel, db) }
            var removed = false
            if complete {
                let ids = Set(channels.map(\.id.rawValue))
                let kept = try await db.query("SELECT id FROM channels").compactMap { $0.column("id")?.string }
                for id in kept where !ids.contains(id) {
                    try await Self.remove(ChannelId(id), db)
                    removed = true
                }
            }
            try await Self.pruneChannels(keeping: limit, db)
            return removed
        }
        if removed { try await eraseDeleted() }
    }

    /// Writes one channel's change, with the position it reflects, then drops its messages
    /// past the limit.
    func apply(_ change: ChannelChange, to id: ChannelId) async throws {
        let limit = limits.messagesPerChannel
        try await transaction { db in
            if let channel = change.channel { try await Self.upsert(channel, db) }
            let known = try await db.query("SELECT 1 FROM channels WHERE id = ?", [.text(id.rawValue)]).first != nil
            guard known else { return }
            if change.replacesMessages {
                _ = try await db.query("DELETE FROM messages WHERE channel = ? AND sequence < ?", [.text(id.rawValue), .integer(Int(Self.pendingSequenceBase))])
            }
            for removed in change.removing {
                _ = try await db.query("DELETE FROM messages WHERE channel = ? AND id = ?", [.text(id.rawValue), .text(removed)])
            }
            for message in change.messages { try await Self.upsert(message, db) }
            if let reads = change.reads {
                _ = try await db.query("UPDATE channels SET reads = ? WHERE id = ?", [try Self.text(reads), .text(id.rawValue)])
            }
            if let unread = change.unreadCount {
                _ = try await db.query("UPDATE channels SET unread = ? WHERE id = ?", [.integer(unread), .text(id.rawValue)])
            }
            if let position = change.position { try await Self.setPosition(position, of: id.stream, db) }
            try await Self.pruneMessages(of: id, keeping: limit, db)
        }
    }

    /// Forgets a channel: its row, its messages and its stream's position (actions queued
    /// for it stay, to fail or succeed on their own).
    func removeChannel(_ id: ChannelId) async throws {
        try await transaction { db in try await Self.remove(id, db) }
        try await eraseDeleted()
    }

    /// Removes a channel, its messages but the queued local copies, and its position, in
    /// the transaction `db` is in.
    static func remove(_ id: ChannelId, _ db: SQLiteConnection) async throws {
        _ = try await db.query("DELETE FROM channels WHERE id = ?", [.text(id.rawValue)])
        _ = try await db.query("DELETE FROM messages WHERE channel = ? AND sequence < ?", [.text(id.rawValue), .integer(Int(pendingSequenceBase))])
        try await removePosition(of: id.stream, db)
    }

    /// Replaces one stored message wherever it is kept (a queued action's outcome for a
    /// channel no controller shows), removing the local copy it replaces.
    func replaceMessage(_ message: ChatMessage, removing localId: String?) async throws {
        try await apply(ChannelChange(messages: [message], removing: localId.map { [$0] } ?? []), to: message.channelId)
    }

    /// Adds or replaces a message of its channel (thread replies are not kept).
    static func upsert(_ message: ChatMessage, _ db: SQLiteConnection) async throws {
        guard message.threadParentId == nil else { return }
        _ = try await db.query("""
            INSERT INTO messages (channel, id, sequence, body) VALUES (?, ?, ?, ?)
            ON CONFLICT (channel, id) DO UPDATE SET sequence = excluded.sequence, body = excluded.body
            """, [.text(message.channelId.rawValue), .text(message.id), .integer(Int(message.sequence)), try text(message)])
    }

    private static func upsert(_ channel: ChatChannel, _ db: SQLiteConnection) async throws {
        let activity = (channel.lastMessageAt ?? channel.createdAt).timeIntervalSince1970
        _ = try await db.query("""
            INSERT INTO channels (id, body, activity, listed) VALUES (?, ?, ?, ?)
            ON CONFLICT (id) DO UPDATE SET body = excluded.body, activity = excluded.activity, listed = excluded.listed
            """, [.text(channel.id.rawValue), try text(channel), .float(activity), .integer(channel.membership == nil ? 0 : 1)])
    }

    /// Keeps the newest `limit` messages of a channel, and every pending one.
    private static func pruneMessages(of id: ChannelId, keeping limit: Int, _ db: SQLiteConnection) async throws {
        let base = Int(pendingSequenceBase)
        guard let cutoff = try await db.query("""
            SELECT sequence FROM messages WHERE channel = ? AND sequence < ? ORDER BY sequence DESC LIMIT 1 OFFSET ?
            """, [.text(id.rawValue), .integer(base), .integer(limit - 1)]).first?.column("sequence")?.integer else { return }
        _ = try await db.query("DELETE FROM messages WHERE channel = ? AND sequence < ?", [.text(id.rawValue), .integer(Int(cutoff))])
    }

    /// Keeps the `limit` most recently active channels and those with queued actions; the
    /// others go with their messages and positions.
    private static func pruneChannels(keeping limit: Int, _ db: SQLiteConnection) async throws {
        let dropped = try await db.query("""
            SELECT id FROM channels WHERE id NOT IN (SELECT id FROM channels ORDER BY activity DESC, id DESC LIMIT ?)
            AND id NOT IN (SELECT channel FROM actions WHERE state = 'pending')
            """, [.integer(limit)]).compactMap { $0.column("id")?.string }
        for id in dropped {
            _ = try await db.query("DELETE FROM channels WHERE id = ?", [.text(id)])
            _ = try await db.query("DELETE FROM messages WHERE channel = ?", [.text(id)])
            try await removePosition(of: ChannelId(id).stream, db)
        }
    }
}
