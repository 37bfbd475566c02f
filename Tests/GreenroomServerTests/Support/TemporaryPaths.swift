import Foundation
import Synchronization

/// Paths in the temporary directory for the files and directories the tests make (data
/// directories, images and videos from ffmpeg, logs), each removed when the test process
/// exits, so that a run of the suite leaves nothing in /tmp however a test ended.
///
/// A test may remove its path sooner; a server the tests start removes the data directory it
/// made itself when it stops (``TestServer``). Removal at exit covers the rest: directories a
/// test names for a restart, and files handed to the SDK for uploads.
enum TemporaryPaths {
    private static let made = Mutex<[URL]>([])
    /// Registers the removal once, on the first path made.
    private static let removalAtExit: Void = {
        atexit { TemporaryPaths.removeAll() }
    }()

    /// A new path, `greenroom-test-<UUID><suffix>` in the temporary directory; nothing is
    /// made there yet.
    static func make(_ suffix: String = "") -> URL {
        _ = removalAtExit
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-test-\(UUID().uuidString)\(suffix)")
        made.withLock { $0.append(url) }
        return url
    }

    /// A new, empty directory, removed with everything in it at exit.
    static func makeDirectory() -> URL {
        let url = make()
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes every path made, whatever is left of it.
    static func removeAll() {
        let urls = made.withLock { urls in
            defer { urls.removeAll() }
            return urls
        }
        for url in urls { try? FileManager.default.removeItem(at: url) }
    }
}
