import Foundation
import Logging

/// The storage a node runs on and the broker that carries its events to every node, chosen
/// by configuration: embedded SQLite in the data directory with a ``LocalBroker``, or the
/// PostgreSQL database of `databaseURL` with LISTEN/NOTIFY (``PostgresEventRelay``).
struct StorageBackend: Sendable {
    /// Where everything is stored.
    let storage: any GreenroomStorage
    /// Makes the broker for this storage, given the node's hub.
    let makeBroker: @Sendable (_ hub: EventHub, _ metrics: ServerMetrics, _ logger: Logger) -> any Broker

    /// The embedded store's database file in `dataDirectory`.
    static func sqlitePath(in dataDirectory: String) -> String {
        (dataDirectory as NSString).appendingPathComponent("greenroom.sqlite")
    }

    /// Opens the storage `configuration` names (not yet migrated).
    static func open(_ configuration: ServerConfiguration, logger: Logger) async throws -> StorageBackend {
        if let url = configuration.databaseURL {
            let postgres = try await PostgresStorage.open(url: url, logger: logger)
            return StorageBackend(storage: postgres) { hub, metrics, logger in
                PostgresEventRelay(storage: postgres, hub: hub, metrics: metrics, logger: logger)
            }
        }
        let path = sqlitePath(in: configuration.dataDirectory)
        try restrictDatabaseFiles(path)
        return StorageBackend(storage: try await SQLiteStorage.open(path: path, durability: configuration.durability, logger: logger)) { hub, metrics, _ in
            LocalBroker(hub: hub, metrics: metrics)
        }
    }

    /// Makes the database file (created empty if missing) and its log files readable by
    /// this user only (0600): SQLite gives the log files the database file's mode.
    static func restrictDatabaseFiles(_ path: String) throws {
        let fm = FileManager.default
        if !fm.fileExists(atPath: path) {
            guard fm.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw GreenroomServerError.dataDirectory("cannot create \(path)")
            }
        }
        for file in [path, path + "-wal", path + "-shm"] where fm.fileExists(atPath: file) {
            try fm.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
    }
}
