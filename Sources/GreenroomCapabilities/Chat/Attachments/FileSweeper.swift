import Foundation
import GreenroomCore
import Logging
import ServiceLifecycle

/// Runs ``ChatFiles/sweep(now:)`` every five minutes until graceful shutdown: unsent
/// files past their day go, and so do the folders of files removed on another node.
package struct FileSweeper: Service {
    package let files: ChatFiles
    package let logger: Logger
    package static let period: Duration = .seconds(300)

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.period)
                guard !Task.isCancelled else { return }
                do {
                    try await files.sweep()
                } catch {
                    logger.error("sweeping chat files failed: \(error)")
                }
            }
        }
    }
}
