import Foundation
import GreenroomProtocol
import GreenroomServer
import Testing

/// Runs the `greenroom` executable that `swift test` builds beside the test bundle.
enum CLI {
    static var executable: URL? {
        var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: "/proc/self/exe") {
            directory = Bundle.main.bundleURL.deletingLastPathComponent()
        }
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("greenroom")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `greenroom ARGS` to completion (at most `timeout`).
    static func run(_ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(30)) async throws -> Result {
        let running = try await start(arguments, environment: environment)
        let exit = try await withTimeout(timeout, "greenroom \(arguments.joined(separator: " "))") {
            try await running.process.waitForExit()
        }
        guard case .exited(let status) = exit else {
            Issue.record("greenroom \(arguments.joined(separator: " ")) ended with \(exit)")
            return Result(status: -1, stdout: running.output, stderr: running.errors)
        }
        return Result(status: status, stdout: running.output, stderr: running.errors)
    }

    /// A running `greenroom` process whose output is collected as it comes.
    struct Running: Sendable {
        let process: ChildProcess

        /// What it has written to its standard output so far.
        var output: String { process.output }
        /// What it has written to its standard error so far.
        var errors: String { process.errors }

        /// Returns once the process has exited and its output has been read to the end;
        /// throws `CancellationError` once the waiting task is cancelled (a test past its
        /// time limit must not wait for a process that does not end).
        func waitForExit() async throws {
            _ = try await process.waitForExit()
        }
    }

    /// Starts `greenroom serve ARGS` and waits until it says where it listens.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Running, URL) {
        let server = try await start(["serve"] + arguments, environment: environment)
        var base: URL?
        try await eventually("the server says where it listens") {
            guard let line = server.output.split(separator: "\n").first(where: { $0.contains("is listening on") }) else { return false }
            base = line.split(separator: " ").first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }).flatMap { URL(string: String($0)) }
            return base != nil
        }
        return (server, base!)
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) async throws -> Running {
        guard let executable else {
            Issue.record("the greenroom executable was not found beside the tests")
            throw TestTimeout(what: "no executable")
        }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GREENROOM_") }
        for (key, value) in environment { env[key] = value }
        let process = try await ChildProcess.start(
            executable.path, arguments: arguments, environment: env, output: .kept(limit: 16 << 20), errors: .kept(limit: 16 << 20))
        return Running(process: process)
    }
}
