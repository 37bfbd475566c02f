import Foundation
import GreenroomPostgres
import GreenroomSQLite
import GreenroomStorage
import Logging

/// Backups of a node's store, for `greenroom backup` and `greenroom renew-epochs`.
///
/// An embedded store is backed up while its node runs, with SQLite's online backup API;
/// restoring is starting a node on the copy. A PostgreSQL store is backed up with
/// PostgreSQL's own tools (`pg_dump`); after a restore, ``renewEpochs(databaseURL:logger:)``
/// runs before any node starts. Either way a restored store gives every stream a new epoch:
/// it is older than what clients may have seen, so a client resuming is told
/// `recovered: false` and reloads instead of reading offsets that now name other events.
public enum StoreBackup {
    /// What a backup wrote.
    public struct Report: Sendable {
        /// The size of the backup file.
        public var bytes: Int
        /// The streams in it (each with a new epoch).
        public var streams: Int
        /// How long the backup took.
        public var duration: Duration
    }

    /// Copies the store of `dataDirectory` into a new file at `destination`, consistent at
    /// one commit (every change acknowledged before the backup began is in it) while the
    /// node goes on writing. The file becomes a data directory's `greenroom.sqlite` to
    /// restore it; the app secret, API key and files are the directory's to copy besides.
    /// - Throws: when the directory holds no store or `destination` exists.
    public static func run(dataDirectory: String, to destination: String) async throws -> Report {
        let clock = ContinuousClock()
        let started = clock.now
        let path = StorageBackend.sqlitePath(in: dataDirectory)
        let report = try await SQLiteStorage.backup(databaseAt: path, to: destination)
        return Report(bytes: report.bytes, streams: report.streams, duration: clock.now - started)
    }

    /// Gives every stream of the embedded store in `dataDirectory` a new epoch (for a
    /// database file put back by other means than ``run(dataDirectory:to:)``, such as a
    /// file system snapshot), with no node running on it. Returns how many streams.
    public static func renewEpochs(dataDirectory: String) async throws -> Int {
        let path = StorageBackend.sqlitePath(in: dataDirectory)
        guard FileManager.default.fileExists(atPath: path) else { throw GreenroomServerError.dataDirectory("no Greenroom database at \(path)") }
        let handle = try SQLiteHandle(path: path)
        defer { handle.close() }
        try handle.query("PRAGMA busy_timeout=5000")
        return try SQLiteStorage.renewEpochs(handle)
    }

    /// Gives every stream of the PostgreSQL store at `databaseURL` a new epoch, after a
    /// restore and before any node starts on it. Returns how many streams.
    public static func renewEpochs(databaseURL: String, logger: Logger) async throws -> Int {
        let postgres = try await PostgresStorage.open(url: databaseURL, logger: logger)
        do {
            let count = try await postgres.renewEpochs()
            try await postgres.close()
            return count
        } catch {
            try? await postgres.close()
            throw error
        }
    }
}
