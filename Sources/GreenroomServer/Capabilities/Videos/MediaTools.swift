import Foundation
import GreenroomProtocol

/// The media tools found on this machine, and how they are run.
struct MediaTools: Sendable {
    var ffprobe: String?
    var ffmpeg: String?

    /// The tools named by the configuration, or found on `PATH`.
    static func locate(ffprobe: String?, ffmpeg: String?) -> MediaTools {
        func find(_ name: String, _ configured: String?) -> String? {
            if let configured { return FileManager.default.isExecutableFile(atPath: configured) ? configured : nil }
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
            return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        return MediaTools(ffprobe: find("ffprobe", ffprobe), ffmpeg: find("ffmpeg", ffmpeg))
    }

    /// The input options of every ffprobe and ffmpeg run on an uploaded file, before its
    /// `-i`: the file is read as a local file only (no network or other protocol, so a
    /// playlist naming a URL fetches nothing) and only by the demuxers of the containers a
    /// video feed takes (MP4/MOV, Matroska/WebM, AVI, MPEG-TS; not HLS, concat or the like,
    /// which open other files or URLs).
    static let uploadInput = ["-protocol_whitelist", "file", "-format_whitelist", "mov,mp4,matroska,webm,avi,mpegts"]

    /// Runs a tool; returns its exit status, standard output and standard error. A tool
    /// still running after `limit` is stopped (SIGTERM, then SIGKILL 2 s later) and the run
    /// throws `invalidParameterValue` saying so.
    static func run(_ tool: String, _ arguments: [String], limit: Duration? = nil) async throws -> (status: Int32, output: Data, errors: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = ChildProcesses.pipe(), errors = ChildProcesses.pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            // Both pipes are drained while the tool runs, so a chatty tool never blocks on a full pipe.
            let collected = Locked((Data(), Data()))
            let group = DispatchGroup()
            for (index, pipe) in [output, errors].enumerated() {
                group.enter()
                DispatchQueue.global().async {
                    let data = pipe.fileHandleForReading.readDataToEndOfFile()
                    collected.withLock { if index == 0 { $0.0 = data } else { $0.1 = data } }
                    group.leave()
                }
            }
            let stopped = Locked(false)
            process.terminationHandler = { process in
                group.notify(queue: .global()) {
                    let (out, err) = collected.withLock { $0 }
                    if stopped.value, let limit {
                        continuation.resume(throwing: GreenroomError(
                            .invalidParameterValue, "processing took longer than its limit of \(limit.components.seconds) s"))
                    } else {
                        continuation.resume(returning: (process.terminationStatus, out, err))
                    }
                }
            }
            do {
                try ChildProcesses.run(process)
                if let limit { stop(process, after: limit, noting: stopped) }
            } catch {
                process.terminationHandler = nil
                try? output.fileHandleForWriting.close()
                try? errors.fileHandleForWriting.close()
                continuation.resume(throwing: error)
            }
        }
    }

    /// Stops `process` if it still runs after `limit`: SIGTERM, then SIGKILL 2 s later.
    private static func stop(_ process: Process, after limit: Duration, noting stopped: Locked<Bool>) {
        let pid = process.processIdentifier
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
            guard process.isRunning else { return }
            stopped.withLock { $0 = true }
            process.terminate()
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                if process.isRunning { kill(pid, SIGKILL) }
            }
        }
    }
}
