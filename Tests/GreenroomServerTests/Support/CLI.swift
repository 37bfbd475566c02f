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
        let process = try start(arguments, environment: environment)
        try await withTimeout(timeout, "greenroom \(arguments.joined(separator: " "))") {
            try await process.waitForExit()
        }
        return Result(status: process.process.terminationStatus, stdout: process.output.value, stderr: process.errors.value)
    }

    /// A running `greenroom` process whose output is collected as it comes.
    final class Running: Sendable {
        let process: Process
        let output = Locked("")
        let errors = Locked("")
        /// Who waits for the exit; `nil` once it happened.
        private let exited = Locked<[UUID: CheckedContinuation<Void, Never>]?>([:])

        init(process: Process) { self.process = process }

        func didExit() {
            let waiters = exited.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state = nil }
                return state.map { Array($0.values) } ?? []
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Returns once the process has exited; throws `CancellationError` once the waiting
        /// task is cancelled (a test past its time limit must not wait for a process that does
        /// not end).
        func waitForExit() async throws {
            let waiter = UUID()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let done = exited.withLock { state -> Bool in
                        guard state != nil, !Task.isCancelled else { return true }
                        state?[waiter] = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
            } onCancel: {
                exited.withLock { $0?.removeValue(forKey: waiter) }?.resume()
            }
            if exited.value != nil { throw CancellationError() }
        }
    }

    /// Starts `greenroom serve ARGS` and waits until it says where it listens.
    static func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Running, URL) {
        let server = try start(["serve"] + arguments, environment: environment)
        var base: URL?
        try await eventually("the server says where it listens") {
            guard let line = server.output.value.split(separator: "\n").first(where: { $0.contains("is listening on") }) else { return false }
            base = line.split(separator: " ").first(where: { $0.hasPrefix("http://") || $0.hasPrefix("https://") }).flatMap { URL(string: String($0)) }
            return base != nil
        }
        return (server, base!)
    }

    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Running {
        guard let executable else {
            Issue.record("the greenroom executable was not found beside the tests")
            throw TestTimeout(what: "no executable")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GREENROOM_") }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = ChildProcesses.pipe(), err = ChildProcesses.pipe()
        process.standardOutput = out
        process.standardError = err
        let running = Running(process: process)
        // Each pipe is read to its end by a thread of its own, with blocking reads: no
        // dispatch read source (`readabilityHandler`), whose file descriptor the pipe closes
        // when it is released, possibly before the source's cancellation is done, which
        // crashes libdispatch's event loop (a bad pointer in `_dispatch_event_loop_drain`).
        let readers = DispatchGroup()
        for (handle, text) in [(out.fileHandleForReading, running.output), (err.fileHandleForReading, running.errors)] {
            readers.enter()
            Thread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    text.withLock { $0 += String(decoding: data, as: UTF8.self) }
                }
                readers.leave()
            }.start()
        }
        process.terminationHandler = { _ in
            // Report the exit once the pipes delivered everything (their ends, after the exit).
            readers.notify(queue: .global()) { running.didExit() }
        }
        try ChildProcesses.run(process)
        return running
    }
}
