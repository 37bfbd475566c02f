import GreenroomStorage
import Logging
import PostgresNIO

/// What PostgreSQL says about how durable a commit is, read before the connection pool opens.
///
/// Greenroom acknowledges a change only once it is committed, and gives subscribers the
/// offsets the commit took. With `synchronous_commit = off` (a default its operator may set
/// for a server, a database or a role) PostgreSQL reports a commit before its log is on the
/// disk, and a crash of the database loses the last ones: their offsets would then be
/// given to other events, under the same epoch, and a client that saw the lost ones would
/// resume past the new ones unaware. So when the setting is `off`, every connection of the
/// pool asks for `on` when it starts (a setting any session may choose). The other values
/// all wait for the local disk and are kept as they are: `remote_apply` and standbys named
/// in `synchronous_standby_names` promise more than `on`.
///
/// `fsync = off` is the server's alone; no session can undo it. It is logged as a warning:
/// then a crash of PostgreSQL's machine can lose acknowledged changes.
package struct PostgresCommitSettings: Sendable, Equatable {
    /// `synchronous_commit` as a new connection of Greenroom's role gets it.
    package var synchronousCommit: String
    /// Whether the server's `fsync` is on.
    package var fsync: Bool

    /// Reads the settings on a connection of its own to `location`.
    package static func read(_ location: DatabaseURL, logger: Logger) async throws -> PostgresCommitSettings {
        let row: (String, String)?
        do {
            let connection = try await PostgresConnection.connect(configuration: location.connectionConfiguration(), id: 0, logger: logger)
            let rows: [PostgresRow]
            do {
                rows = try await connection.query("SELECT current_setting('synchronous_commit'), current_setting('fsync')", logger: logger).collect()
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
            row = try rows.first?.decode((String, String).self)
        } catch {
            logger.error("postgres: \(String(reflecting: error))")
            throw GreenroomServerError.storage("cannot read the commit settings of PostgreSQL at \(location.host):\(location.port): \(error)")
        }
        guard let (synchronousCommit, fsync) = row else { throw GreenroomServerError.storage("PostgreSQL did not report its commit settings") }
        return PostgresCommitSettings(synchronousCommit: synchronousCommit, fsync: fsync == "on")
    }

    /// The run-time parameters every connection of the pool asks for when it starts.
    package var startupParameters: [(String, String)] {
        synchronousCommit == "off" ? [("synchronous_commit", "on")] : []
    }

    /// Tells the operator what the settings mean for acknowledged changes.
    package func log(to logger: Logger) {
        if synchronousCommit == "off" {
            logger.notice("PostgreSQL's synchronous_commit is off for this role and database; Greenroom's connections turn it on, so a commit is on the disk before it is acknowledged")
        }
        if !fsync {
            logger.warning("PostgreSQL runs with fsync=off: if its machine crashes, changes Greenroom acknowledged can be lost and their offsets given to other events")
        }
    }
}

extension PostgresStorage {
    /// Gives every stream a new random epoch; returns how many there are. For a database
    /// restored to an earlier point (`greenroom renew-epochs`), before any node starts on
    /// it: events after that point are gone and their offsets would go to other events, so
    /// a client resuming from a position it held must be told `recovered: false`.
    package func renewEpochs() async throws -> Int {
        let rows = try await fetch("WITH renewed AS (UPDATE streams SET epoch = substr(md5(random()::text || name), 1, 8) RETURNING 1) SELECT count(*) FROM renewed")
        return Int(try rows.first?.decode(Int64.self) ?? 0)
    }
}
