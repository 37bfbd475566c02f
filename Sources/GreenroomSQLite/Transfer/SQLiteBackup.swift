import Foundation
import GreenroomStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a backup wrote.
package struct SQLiteBackupReport: Sendable {
    /// The database's pages copied.
    package var pages: Int
    /// The size of the backup file.
    package var bytes: Int
    /// The streams, each given a new epoch in the copy.
    package var streams: Int
}

extension SQLiteStorage {
    /// Copies the database at `path` into a new file at `destination`, while a node may go
    /// on writing to it (SQLite's online backup API over a connection of its own): the copy
    /// holds every commit made before the backup began, and is one file, ready to be a data
    /// directory's `greenroom.sqlite`.
    ///
    /// Every stream gets a new epoch in the copy. A node started on it is restored to an
    /// earlier point than its clients may have seen: events after the backup are not in it,
    /// and their offsets would go to other events. Under new epochs a client resuming from
    /// any position it held is told `recovered: false` and reloads, never reads a reused
    /// offset (as after a machine crash, ``Durability``).
    ///
    /// The file is written beside `destination` first and renamed when complete, so a
    /// backup that stops half way leaves no file that looks whole.
    /// - Throws: when there is no Greenroom database at `path` or `destination` exists.
    package static func backup(databaseAt path: String, to destination: String) async throws -> SQLiteBackupReport {
        let fm = FileManager.default
        guard fm.fileExists(atPath: path) else { throw GreenroomServerError.dataDirectory("no Greenroom database at \(path)") }
        guard !fm.fileExists(atPath: destination) else {
            throw GreenroomServerError.dataDirectory("\(destination) exists; a backup writes a new file")
        }
        let partial = destination + ".partial"
        try? fm.removeItem(atPath: partial)
        // The copy holds every user's data: readable by this user only, as the database is.
        guard fm.createFile(atPath: partial, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw GreenroomServerError.dataDirectory("cannot create \(partial)")
        }
        let thread = SQLiteThread(name: "sqlite-backup")
        do {
            let copied: Result<(Int, Int), any Error>
            do { copied = .success(try await thread.run {
                let source = try SQLiteHandle(path: path)
                defer { source.close() }
                try source.query("PRAGMA busy_timeout=5000")
                guard try !source.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").isEmpty else {
                    throw GreenroomServerError.dataDirectory("\(path) holds no Greenroom data")
                }
                let copy = try SQLiteHandle(path: partial)
                defer { copy.close() }
                try copy.query("PRAGMA busy_timeout=5000")
                let pages = try source.copy(into: copy)
                // One file, without a log beside it; each commit synced.
                try copy.query("PRAGMA journal_mode=DELETE")
                try copy.query("PRAGMA synchronous=FULL")
                let streams = try renewEpochs(copy)
                return (pages, streams)
            }) } catch { copied = .failure(error) }
            try? await thread.shutdown()
            let (pages, streams) = try copied.get()
            guard rename(partial, destination) == 0 else {
                throw GreenroomServerError.dataDirectory("cannot rename \(partial) to \(destination): errno \(errno)")
            }
            DurableFile.syncDirectory(of: destination)
            let bytes = ((try? fm.attributesOfItem(atPath: destination))?[.size] as? Int) ?? 0
            return SQLiteBackupReport(pages: pages, bytes: bytes, streams: streams)
        } catch {
            try? fm.removeItem(atPath: partial)
            throw error
        }
    }
}
