import ArgumentParser
import Foundation
import GreenroomServer
import Logging

/// `greenroom migrate`: copies an embedded store into an empty PostgreSQL database.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a data directory's SQLite store into an empty PostgreSQL database, all or nothing.",
        discussion: """
            Stop the node first: what it writes after the copy starts is not copied. Epochs and offsets \
            are kept, so clients resume on the new nodes with recovered: true. The data directory keeps \
            the app secret, API key and files: run the new nodes on it (or on copies of it).
            """)

    @Option(name: .customLong("data-dir"), help: "The data directory of the SQLite store (GREENROOM_DATA_DIR, default ./greenroom-data).") var dataDir: String?
    @Option(help: "The empty PostgreSQL database, postgres://user:password@host:port/db.") var to: String
    @Option(name: .customLong("page-size"), help: "Rows copied per statement (default 2000).") var pageSize = 2_000

    func run() async throws {
        guard (1...50_000).contains(pageSize) else { throw ValidationError("--page-size must be 1–50000") }
        let directory = CLIDataDirectory.resolve(dataDir)
        var logger = Logger(label: "greenroom.migrate")
        logger.logLevel = .error
        let report = try await StoreMigration.run(dataDirectory: directory, to: to, pageSize: pageSize, logger: logger) { line in
            StandardStreams.err(line + "\n")
        }
        let seconds = report.duration.seconds
        let rate = seconds > 0 ? Int(Double(report.messages) / seconds) : report.messages
        let counts = ["users", "streams", "events", "presence", "records"].map { "\(report.counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
        print("migrated \(counts) (\(report.messages) messages) in \(String(format: "%.1f", seconds)) s, \(rate) messages/s")
    }
}

/// `greenroom backup`: a consistent copy of a running node's SQLite store.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a data directory's SQLite store into a new file while its node runs.",
        discussion: """
            The copy holds every change acknowledged before the backup began. To restore, stop the node \
            and put the file in place as the data directory's greenroom.sqlite. Every stream has a new \
            epoch in the copy: clients resuming after a restore are told recovered: false and reload.
            """)

    @Option(name: .customLong("data-dir"), help: "The node's data directory (GREENROOM_DATA_DIR, default ./greenroom-data).") var dataDir: String?
    @Option(help: "The backup file to write; it must not exist.") var to: String

    func run() async throws {
        let directory = CLIDataDirectory.resolve(dataDir)
        let report = try await StoreBackup.run(dataDirectory: directory, to: to)
        let seconds = report.duration.seconds
        print("backed up \(report.bytes) bytes (\(report.streams) streams, each with a new epoch) to \(to) in \(String(format: "%.2f", seconds)) s")
    }
}

/// `greenroom renew-epochs`: after a store was put back to an earlier point.
struct RenewEpochs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew-epochs",
        abstract: "Give every stream a new epoch after restoring a store, before any node starts on it.",
        discussion: """
            For a PostgreSQL database restored from a dump, or an SQLite file put back by other means than \
            greenroom backup (which renews them itself). Clients resuming are then told recovered: false.
            """)

    @Option(name: .customLong("data-dir"), help: "The data directory of a SQLite store.") var dataDir: String?
    @Option(help: "A PostgreSQL database, postgres://user:password@host:port/db.") var database: String?

    func run() async throws {
        var logger = Logger(label: "greenroom.renew-epochs")
        logger.logLevel = .error
        let count: Int
        switch (dataDir, database) {
        case (let directory?, nil): count = try await StoreBackup.renewEpochs(dataDirectory: directory)
        case (nil, let url?): count = try await StoreBackup.renewEpochs(databaseURL: url, logger: logger)
        default: throw ValidationError("name one store: --data-dir or --database")
        }
        print("\(count) streams have a new epoch")
    }
}

/// The data directory a command uses: its `--data-dir`, else `GREENROOM_DATA_DIR`, else
/// `./greenroom-data`.
enum CLIDataDirectory {
    static func resolve(_ flag: String?) -> String {
        flag ?? ProcessInfo.processInfo.environment["GREENROOM_DATA_DIR"] ?? "./greenroom-data"
    }
}

extension Duration {
    /// The duration in seconds, fractions included.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
