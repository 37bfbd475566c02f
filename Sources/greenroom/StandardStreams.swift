import Foundation

/// Writes to standard output and standard error without trapping when the reader is gone:
/// `FileHandle.write(_:)` traps on a write error on Linux, and a closed pipe (a parent that
/// exited, `greenroom listen | head -1`) is one: a server whose parent stops reading it
/// (a bench that ends before the server has stopped) would trap on its last line.
enum StandardStreams {
    /// Writes `data` to standard output. - Returns: whether it was written.
    @discardableResult
    static func out(_ data: Data) -> Bool {
        (try? FileHandle.standardOutput.write(contentsOf: data)) != nil
    }

    /// Writes `text` to standard error.
    static func err(_ text: String) {
        _ = try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
