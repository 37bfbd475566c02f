import Foundation
import GreenroomStorage
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping clients aware of commits a machine crash may have taken (``Durability/process``).
///
/// While a node runs with `process`, the file `<database>-unsynced` names the machine's boot
/// (Linux's `/proc/sys/kernel/random/boot_id`): commits it acknowledged may not be on the
/// disk yet. A clean close runs a full checkpoint (which syncs the log and the database file)
/// and removes the file. At the next open, a file that names another boot (or an unknown
/// one) means the machine went down while the node ran: its last commits may be lost, and
/// their offsets given to other events later, so every stream gets a new epoch and a client
/// that saw the old ones is told `recovered: false` when it resumes. A file that names this
/// boot means only the process stopped: the operating system still had every commit, and a
/// checkpoint puts them on the disk.
extension SQLiteStorage {
    /// The file that says the database may hold acknowledged commits the disk does not.
    package static func unsyncedMarkerPath(_ path: String) -> String { path + "-unsynced" }

    /// The identifier of the machine's current boot; nil where the system does not say.
    package static func bootIdentifier() -> String? {
        #if os(Linux)
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
        #else
        var size = 0
        guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: size)
        guard sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #endif
    }

    /// At open, on the writer's thread, before anything is written: renews every stream's
    /// epoch when the last run's unsynced commits may have been lost with the machine, puts
    /// on the disk what the last run left with the operating system, then marks this run
    /// when it commits without waiting for the disk.
    package static func prepareDurability(_ durability: Durability, writer: SQLiteHandle, path: String, logger: Logger) throws {
        let marker = unsyncedMarkerPath(path)
        let boot = bootIdentifier()
        if FileManager.default.fileExists(atPath: marker) {
            let previous = (try? String(contentsOfFile: marker, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if boot == nil || previous != boot {
                let renewed = try renewEpochs(writer)
                logger.warning("the machine stopped while this database had commits not yet on the disk: \(renewed) streams have a new epoch, and clients resuming them will reload",
                               metadata: ["path": "\(path)"])
            }
            // Whatever the last run left in the operating system's hands goes to the disk now.
            if try checkpointFully(writer), durability == .disk {
                try FileManager.default.removeItem(atPath: marker)
            }
        }
        if durability == .process {
            try DurableFile.write(boot ?? "unknown", to: marker)
        }
    }

    /// At a clean close, on the writer's thread: puts every commit on the disk and removes
    /// the mark (left when the checkpoint could not finish: the next open checks again).
    package static func finishDurability(_ durability: Durability, writer: SQLiteHandle, path: String) {
        let marker = unsyncedMarkerPath(path)
        guard durability == .process || FileManager.default.fileExists(atPath: marker) else { return }
        if (try? checkpointFully(writer)) == true { try? FileManager.default.removeItem(atPath: marker) }
    }

    /// Gives every stream a new random epoch; returns how many there are.
    package static func renewEpochs(_ writer: SQLiteHandle) throws -> Int {
        let tables = try writer.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'streams'")
        guard !tables.isEmpty else { return 0 }
        try writer.query("BEGIN IMMEDIATE")
        do {
            let count = try writer.query("SELECT count(*) AS n FROM streams").first?.column("n")?.integer ?? 0
            try writer.query("UPDATE streams SET epoch = lower(hex(randomblob(4)))")
            try writer.query("COMMIT")
            return count
        } catch {
            _ = try? writer.query("ROLLBACK")
            throw error
        }
    }

    /// Copies the whole log into the database file, syncing both (in WAL mode SQLite syncs
    /// the log before a checkpoint and the file after it, at `NORMAL` as at `FULL`).
    /// - Returns: whether the checkpoint finished (no reader held it back).
    package static func checkpointFully(_ writer: SQLiteHandle) throws -> Bool {
        try writer.query("PRAGMA wal_checkpoint(FULL)").first?.column("busy")?.integer == 0
    }
}

/// A small file written to stay: the data and its directory entry synced before returning.
package enum DurableFile {
    /// Writes `text` to `path` and waits until the file and its directory entry are on the
    /// disk: the mark must be there before any commit that needs it is acknowledged.
    package static func write(_ text: String, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw GreenroomServerError.dataDirectory("cannot write \(path): errno \(errno)") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw GreenroomServerError.dataDirectory("cannot write \(path): errno \(errno)")
        }
        syncDirectory(of: path)
    }

    /// Puts the directory entry of `path` on the disk (a new or renamed file's name).
    package static func syncDirectory(of path: String) {
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY)
        guard directory >= 0 else { return }
        defer { close(directory) }
        _ = fsync(directory)
    }
}
