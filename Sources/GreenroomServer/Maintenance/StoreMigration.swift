import Foundation
import GreenroomPostgres
import GreenroomSQLite
import GreenroomStorage
import Logging

/// Copies an embedded store (a data directory's SQLite database) into an empty PostgreSQL
/// database, for `greenroom migrate`: the road from one node to many.
///
/// Everything the store holds is copied as it is: users, every stream with its epoch,
/// head and retained events (offsets, idempotency keys, audiences), the records of every
/// capability (channels, members, messages, read state, live events, meetings, videos'
/// metadata, the webhook and push outbox, the search texts) and presence entries. Since
/// epochs and offsets are kept, a client that stored a position before the move resumes
/// against the new cluster with `recovered: true` and misses nothing. Presence entries keep
/// their expiry; nobody renews the old node's, so they end then and their leaves are
/// announced, as for any node that stopped.
///
/// What the data directory holds besides the database stays there: the app secret and API
/// key (tokens stay valid) and the files of attachments, videos and livestreams. The new
/// nodes run on that directory (shared between them) or on copies of it.
///
/// The copy is all or nothing: it is one PostgreSQL transaction, with the tables locked
/// against writers, that commits only when every table's row count equals the source's.
/// A failed copy leaves the database as empty as it was, and can be run again.
public enum StoreMigration {
    /// What a finished copy moved.
    public struct Report: Sendable {
        /// Rows copied per table (`users`, `streams`, `events`, `presence`, `records`).
        public var counts: [String: Int]
        /// How long the copy took.
        public var duration: Duration
        /// The messages among the copied records.
        public var messages: Int
    }

    /// Copies the store of `dataDirectory` into the (empty) database at `databaseURL`.
    /// The source should not change meanwhile: stop its node first (what it writes after
    /// the copy starts is not copied).
    /// - Parameters:
    ///   - pageSize: rows read and inserted at a time.
    ///   - progress: told a line at each table and every `pageSize × 20` rows.
    /// - Throws: when the source cannot be read, the target holds Greenroom data already,
    ///   or the counts differ at the end (then nothing is committed).
    public static func run(dataDirectory: String, to databaseURL: String, pageSize: Int = 2_000, logger: Logger,
                           progress: @Sendable (String) -> Void = { _ in }) async throws -> Report {
        let clock = ContinuousClock()
        let started = clock.now
        let path = StorageBackend.sqlitePath(in: dataDirectory)
        let snapshot = try await SQLiteSnapshot.open(path: path)
        do {
            let source = try await snapshot.counts()
            let messages = try await snapshot.count(kind: "message")
            progress("read \(path): " + StoreTable.all.map { "\(source[$0.name] ?? 0) \($0.name)" }.joined(separator: ", "))
            let postgres = try await PostgresStorage.open(url: databaseURL, logger: logger)
            do {
                try await postgres.migrate()
                let copied = try await postgres.importing { target in
                    for table in StoreTable.all {
                        let total = source[table.name] ?? 0
                        var done = 0
                        var pages = snapshot.pages(of: table, size: pageSize)
                        while let page = try await pages.next() {
                            try await target.insert(page, into: table)
                            done += page.count
                            if done % (pageSize * 20) < page.count { progress("\(table.name): \(done) of \(total)") }
                        }
                        progress("\(table.name): \(done) of \(total) copied")
                    }
                    let counts = try await target.counts()
                    for table in StoreTable.all where counts[table.name] != source[table.name] {
                        throw GreenroomServerError.storage(
                            "\(table.name) has \(counts[table.name] ?? 0) rows in PostgreSQL, \(source[table.name] ?? 0) in \(path): nothing was copied")
                    }
                    return counts
                }
                try await postgres.close()
                await snapshot.close()
                progress("verified: every table holds as many rows as the source")
                return Report(counts: copied, duration: clock.now - started, messages: messages)
            } catch {
                try? await postgres.close()
                throw error
            }
        } catch {
            await snapshot.close()
            throw error
        }
    }
}
