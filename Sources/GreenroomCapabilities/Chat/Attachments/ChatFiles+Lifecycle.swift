import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatFiles {
    // MARK: Reading

    /// A file as the caller may see it: the app's backend any; a file not sent yet only
    /// its uploader; a sent one the joined members of its channel. - Throws: `notFound`,
    /// `notChannelMember`.
    package func attachment(_ id: String, identity: Identity) async throws -> FileRecord {
        guard let record = try await storage.load(FileRecord.self, id: id) else {
            throw GreenroomError(.notFound, "no file with id \(id)")
        }
        guard !identity.isBackend else { return record }
        if record.state == .sent {
            _ = try await ChatService.requireJoined(storage, record.file.channelId, identity.userId)
        } else if record.file.uploadedBy != identity.userId {
            throw GreenroomError(.notFound, "no file with id \(id)")
        }
        return record
    }

    /// The bytes of a file (or an image's thumbnail) the caller may read: where they are,
    /// how many, and the type to serve them as.
    package func content(_ id: String, thumbnail wantsThumbnail: Bool, identity: Identity) async throws -> (url: URL, size: Int64, file: ChatAttachment) {
        let record = try await attachment(id, identity: identity)
        let url = wantsThumbnail ? thumbnail(id) : original(id)
        guard record.state != .uploading, !wantsThumbnail || record.file.thumbnailURL != nil,
              FileManager.default.fileExists(atPath: url.path) else {
            throw GreenroomError(.notFound, "file \(id) has no \(wantsThumbnail ? "thumbnail" : "bytes") on this node")
        }
        return (url, ResumableFiles.size(of: url), record.file)
    }

    // MARK: Sending and removing (in the message's transaction)

    /// Marks the files `ids` sent with message `messageId` of `channel`: each must be the
    /// sender's, uploaded for this channel, complete and not sent before. - Returns: the
    /// attachments in the order given.
    package static func attach(_ ids: [String], to messageId: String, in channel: ChannelId, by sender: String,
                               _ transaction: any StorageTransaction) async throws -> [ChatAttachment] {
        var attached: [ChatAttachment] = []
        for id in ids {
            guard var record = try await transaction.load(FileRecord.self, id: id), record.file.uploadedBy == sender,
                  record.file.channelId == channel else {
                throw GreenroomError(.invalidParameterValue, "attachmentIds: \(id) is no file of yours uploaded for channel \(channel)")
            }
            guard record.state == .uploaded else {
                throw GreenroomError(.invalidParameterValue, record.state == .sent
                                     ? "attachmentIds: file \(id) was sent already" : "attachmentIds: file \(id) is still uploading; complete it first")
            }
            record.state = .sent
            record.messageId = messageId
            try await transaction.save(record)
            attached.append(record.file)
        }
        if !attached.isEmpty {
            guard var usage = try await transaction.load(FileUsageRecord.self, id: sender) else { return attached }
            usage.unsent = max(0, usage.unsent - attached.count)
            try await transaction.save(usage)
        }
        return attached
    }

    /// Removes the records of `files` and gives their bytes back to their uploaders'
    /// quotas. Their folders go after the commit (``removeFolders(_:)``) or with the sweep.
    package static func drop(_ files: [FileRecord], in transaction: any StorageTransaction) async throws {
        for (owner, owned) in Dictionary(grouping: files, by: \.file.uploadedBy) {
            if var usage = try await transaction.load(FileUsageRecord.self, id: owner) {
                usage.bytes = max(0, usage.bytes - owned.reduce(0) { $0 + $1.counted })
                usage.unsent = max(0, usage.unsent - owned.filter { $0.state != .sent }.count)
                if usage.bytes == 0 && usage.unsent == 0 {
                    try await transaction.remove(FileUsageRecord.self, id: owner)
                } else {
                    try await transaction.save(usage)
                }
            }
        }
        for file in files {
            try await transaction.remove(FileRecord.self, id: file.file.id)
            try await transaction.remove(ChannelFileRecord.self, scope: file.file.channelId.rawValue, id: file.file.id)
        }
    }

    /// Removes the files a deleted message carried. - Returns: their ids.
    package static func drop(filesOf message: ChatMessage, _ attachments: [ChatAttachment], in transaction: any StorageTransaction) async throws -> [String] {
        var records: [FileRecord] = []
        for attachment in attachments {
            if let record = try await transaction.load(FileRecord.self, id: attachment.id), record.messageId == message.id { records.append(record) }
        }
        try await drop(records, in: transaction)
        return records.map(\.file.id)
    }

    /// Removes every file of a channel being deleted. - Returns: their ids.
    package static func drop(filesOf channel: ChannelId, in transaction: any StorageTransaction) async throws -> [String] {
        let index = try await transaction.list(ChannelFileRecord.self, RecordQuery(kind: ChannelFileRecord.recordKind, scope: channel.rawValue, limit: 1_000_000))
        var records: [FileRecord] = []
        for entry in index {
            if let record = try await transaction.load(FileRecord.self, id: entry.fileId) { records.append(record) }
        }
        try await drop(records, in: transaction)
        try await transaction.deleteRecords(kind: ChannelFileRecord.recordKind, scope: channel.rawValue)
        return index.map(\.fileId)
    }

    /// Removes the folders of files whose records are gone.
    package func removeFolders(_ ids: [String]) { Self.removeFolders(ids, under: directory) }

    /// Removes the folders of the files `ids` under `directory` (ids that are not ids name
    /// no folder of ours).
    package static func removeFolders(_ ids: [String], under directory: URL) {
        for id in ids where Limits.isValidId(id) { try? FileManager.default.removeItem(at: directory.appendingPathComponent(id, isDirectory: true)) }
    }

    // MARK: Sweeping

    /// Removes files uploaded more than ``unsentLifetime`` ago and never sent, and the
    /// folders on this node's disk of files whose records are gone (a message deleted on
    /// another node, a crash between a commit and the removal); a folder younger than a
    /// minute is left, as its upload's record may not be committed yet. - Returns: how
    /// many folders were removed.
    @discardableResult
    package func sweep(now: Date = Date()) async throws -> Int {
        var stale = RecordQuery(kind: FileRecord.recordKind, limit: 1_000)
        stale.tags = [FileRecord.State.uploading.rawValue, FileRecord.State.uploaded.rawValue]
        stale.sortBelow = Paging.millis(now.addingTimeInterval(-Self.unsentLifetime))
        let expired = try await storage.list(FileRecord.self, stale)
        if !expired.isEmpty {
            try await events.transact { transaction in
                var current: [FileRecord] = []
                for file in expired {
                    if let record = try await transaction.load(FileRecord.self, id: file.file.id), record.state != .sent { current.append(record) }
                }
                try await Self.drop(current, in: transaction)
            }
        }
        let folders = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.creationDateKey])) ?? []
        var removed = 0
        for folder in folders {
            let id = folder.lastPathComponent
            let made = (try? folder.resourceValues(forKeys: [.creationDateKey]).creationDate) ?? now
            guard Limits.isValidId(id), now.timeIntervalSince(made) > 60 else { continue }
            guard try await storage.load(FileRecord.self, id: id) == nil else { continue }
            try? FileManager.default.removeItem(at: folder)
            removed += 1
        }
        return removed
    }
}
