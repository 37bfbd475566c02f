import Foundation
import GreenroomProtocol
import GreenroomStorage
import Subprocess
import SystemPackage

/// A program Greenroom runs (Janus and ffmpeg; in tests also servers, browsers and tools),
/// started with swift-subprocess, from its start until it exits or is stopped.
///
/// Not Foundation's `Process`: on Linux its `run()` lists `/proc/self/fd` to close the
/// parent's descriptors in the child, copying each entry's whole 256-byte name where glibc
/// returns only as many bytes as the entry needs; an entry at the end of glibc's buffer
/// reads past it, and this project's test process crashed with SIGSEGV in `memcpy` under
/// `Process.run()` (swift-corelibs-foundation pull request 5472, not in Swift 6.3.1). A
/// server that runs ffmpeg for each upload would crash the same way. swift-subprocess
/// closes the child's other descriptors with posix_spawn's `closefrom` (so children
/// started at once never hold each other's pipes), clears the signal mask the spawning
/// thread has, and learns of the exit through a pidfd.
///
/// Each child gets a process group of its own, so that a terminal's Ctrl-C reaches the
/// server, which then stops its children in order.
package final class ChildProcess: Sendable {
    /// Where a child's standard output or error goes.
    package enum Sink: Sendable {
        /// Read and dropped.
        case discarded
        /// Appended to the file at this path, made if missing.
        case file(String)
        /// Kept (the first `limit` bytes) in ``output`` or ``errors``.
        case kept(limit: Int)
    }

    /// How a child ended.
    package enum Exit: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signalled(Int32)
        /// Its end could not be learnt (the reason).
        case unknown(String)

        /// Whether it exited with status 0.
        package var succeeded: Bool { self == .exited(0) }

        package var description: String {
            switch self {
            case .exited(let status): "status \(status)"
            case .signalled(let signal): "signal \(signal)"
            case .unknown(let reason): "unknown (\(reason))"
            }
        }
    }

    /// The child's process id.
    package let pid: Int32
    private let shared: Shared
    private let task: Task<Void, Never>

    private init(pid: Int32, shared: Shared, task: Task<Void, Never>) {
        self.pid = pid
        self.shared = shared
        self.task = task
    }

    /// Starts `executable` with `arguments`; returns once it runs, or throws when it cannot
    /// be started. Standard input is `/dev/null`. `environment` replaces this process's
    /// when given. ``stop()`` sends SIGTERM, and SIGKILL `grace` later if it still runs.
    package static func start(
        _ executable: String, arguments: [String], environment: [String: String]? = nil,
        output: Sink = .discarded, errors: Sink = .discarded, grace: Duration = .seconds(2)
    ) async throws -> ChildProcess {
        let shared = Shared()
        var options = PlatformOptions()
        options.processGroupID = 0
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: grace)]
        let environment: Subprocess.Environment = environment.map { values in
            .custom(Dictionary(uniqueKeysWithValues: values.map { (Subprocess.Environment.Key(stringLiteral: $0.key), $0.value) }))
        } ?? .inherit
        let configuration = Configuration(
            executable: .path(FilePath(executable)), arguments: Arguments(arguments), environment: environment, platformOptions: options)
        let (started, startedContinuation) = AsyncStream.makeStream(of: Result<Int32, any Error>.self)
        let task = Task {
            do {
                let outcome = try await Subprocess.run(configuration, input: .none, output: .sequence, error: .sequence) { execution in
                    startedContinuation.yield(.success(execution.processIdentifier.value))
                    startedContinuation.finish()
                    async let out: Void = shared.drain(execution.standardOutput, into: output, errors: false)
                    async let err: Void = shared.drain(execution.standardError, into: errors, errors: true)
                    _ = await (out, err)
                }
                switch outcome.terminationStatus {
                case .exited(let status): shared.ended(.exited(status))
                case .signaled(let signal): shared.ended(.signalled(signal))
                }
            } catch {
                startedContinuation.yield(.failure(error))
                startedContinuation.finish()
                shared.ended(.unknown("\(error)"))
            }
        }
        var iterator = started.makeAsyncIterator()
        switch await iterator.next() {
        case .success(let pid): return ChildProcess(pid: pid, shared: shared, task: task)
        case .failure(let error): throw GreenroomError(.unavailable, "cannot start \(executable): \(error)")
        case nil:
            // The caller was cancelled while it started: stop what may have started.
            task.cancel()
            throw CancellationError()
        }
    }

    /// Whether it still runs (until its exit has been learnt).
    package var isRunning: Bool { shared.exit == nil }

    /// How it ended; `nil` while it runs.
    package var exit: Exit? { shared.exit }

    /// What it wrote to its standard output, when kept.
    package var output: String { shared.text(errors: false) }

    /// What it wrote to its standard error, when kept.
    package var errors: String { shared.text(errors: true) }

    /// Returns how it ended, once it has; throws `CancellationError` when the waiting task
    /// is cancelled first (the child goes on).
    package func waitForExit() async throws -> Exit {
        try await shared.waitForExit()
    }

    /// Returns how it ended, once it has, even when the waiting task is cancelled meanwhile
    /// (for those that stop it and must know it is gone).
    package func exited() async -> Exit {
        let shared = shared
        return (try? await Task { try await shared.waitForExit() }.value) ?? .unknown("the wait ended early")
    }

    /// Stops it: SIGTERM, then SIGKILL once its grace has passed. Returns at once.
    package func stop() {
        task.cancel()
    }

    /// Stops it and blocks the calling thread until it has exited (at most 5 s), for the
    /// synchronous `defer`s of tools and tests; never on the server's own paths.
    package func stopAndWait() {
        stop()
        for _ in 0..<500 where isRunning { usleep(10_000) }
    }

    /// Sends `signal` while it runs (tests kill servers and Janus with SIGKILL).
    package func send(_ signal: Int32) {
        guard isRunning else { return }
        kill(pid, signal)
    }
}

extension ChildProcess {
    /// Runs a tool to its end and returns its exit and what it wrote (up to 64 MiB of
    /// output and 1 MiB of errors). A tool still running after `limit` is stopped (SIGTERM,
    /// then SIGKILL 2 s later) and the run throws `invalidParameterValue` saying so.
    package static func run(_ tool: String, _ arguments: [String], limit: Duration? = nil) async throws -> (exit: Exit, output: Data, errors: Data) {
        let child = try await start(tool, arguments: arguments, output: .kept(limit: 64 << 20), errors: .kept(limit: 1 << 20))
        let timedOut = Locked(false)
        let timer = limit.map { limit in
            Task {
                try await Task.sleep(for: limit)
                timedOut.withLock { $0 = true }
                child.stop()
            }
        }
        defer { timer?.cancel() }
        let exit = try await withTaskCancellationHandler { try await child.waitForExit() } onCancel: { child.stop() }
        if timedOut.value, let limit {
            throw GreenroomError(.invalidParameterValue, "processing took longer than its limit of \(limit.components.seconds) s")
        }
        return (exit, child.shared.bytes(errors: false), child.shared.bytes(errors: true))
    }
}

/// What a child's task and its ``ChildProcess`` share: its exit, who waits for it, and the
/// output kept.
private final class Shared: Sendable {
    private struct State {
        var exit: ChildProcess.Exit?
        var waiters: [UUID: CheckedContinuation<ChildProcess.Exit, any Error>] = [:]
        var output: [UInt8] = []
        var errors: [UInt8] = []
    }

    private let state = Locked(State())

    var exit: ChildProcess.Exit? { state.withLock { $0.exit } }

    func ended(_ exit: ChildProcess.Exit) {
        let waiters = state.withLock { state -> [CheckedContinuation<ChildProcess.Exit, any Error>] in
            guard state.exit == nil else { return [] }
            state.exit = exit
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: exit) }
    }

    func waitForExit() async throws -> ChildProcess.Exit {
        let waiter = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let now = state.withLock { state -> Result<ChildProcess.Exit, any Error>? in
                    if let exit = state.exit { return .success(exit) }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[waiter] = continuation
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: waiter) }?.resume(throwing: CancellationError())
        }
    }

    func bytes(errors: Bool) -> Data { state.withLock { Data(errors ? $0.errors : $0.output) } }

    func text(errors: Bool) -> String { state.withLock { String(decoding: errors ? $0.errors : $0.output, as: UTF8.self) } }

    /// Reads one of the child's outputs to its end into `sink`. A stopped child's output is
    /// left unread (the read ends with the task's cancellation).
    func drain(_ sequence: SubprocessOutputSequence, into sink: ChildProcess.Sink, errors: Bool) async {
        var file: FileDescriptor?
        if case .file(let path) = sink {
            file = try? FileDescriptor.open(
                FilePath(path), .writeOnly, options: [.append, .create, .closeOnExec], permissions: [.ownerReadWrite])
        }
        defer { try? file?.close() }
        do {
            for try await buffer in sequence {
                switch sink {
                case .discarded:
                    break
                case .file:
                    _ = try? buffer.withUnsafeBytes { try file?.writeAll($0) }
                case .kept(let limit):
                    buffer.withUnsafeBytes { bytes in
                        state.withLock { state in
                            let room = max(0, limit - (errors ? state.errors.count : state.output.count))
                            if errors { state.errors += bytes.prefix(room) } else { state.output += bytes.prefix(room) }
                        }
                    }
                }
            }
        } catch {}
    }
}
