import ArgumentParser
import Foundation
import Synchronization
import Greenroom
import GreenroomServer
import Histogram
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `greenroom bench`: measures a server and prints progress, then one JSON line of figures.
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure a server: fan-out, a big room, idle connections, reconnect storms, durable appends, media, offline starts.",
        subcommands: [BenchFanout.self, BenchRoom.self, BenchConnections.self, BenchReconnect.self, BenchStore.self, BenchSoak.self, BenchMedia.self, BenchAbuse.self,
                      BenchOffline.self])
}

/// Options every benchmark takes.
struct BenchOptions: ParsableArguments {
    @Option(help: "Measure this server instead of starting one (needs --data-dir with its secret and key).") var server: String?
    @Option(name: .customLong("data-dir"), help: "The measured server's data directory.") var dataDir: String?
    @Option(help: "Start the server on this PostgreSQL database instead of SQLite.") var database: String?
    @Option(help: "Start the server with this durability: disk (the default) or process.") var durability: String?

    /// The storage of the server the bench starts, `sqlite` or `postgres`; `nil` for a
    /// server given with --server, whose storage the bench does not know.
    var startedStorage: String? {
        server != nil ? nil : database == nil ? "sqlite" : "postgres"
    }
}

/// The server under measurement: a child `greenroom serve` (so that its CPU and memory are
/// its own), or one given with --server.
final class BenchTarget: Sendable {
    let baseURL: URL
    let dataDirectory: String
    let apiKey: String
    let tokens: TokenService
    let process: ChildProcess?
    /// Whether the bench made the data directory (no `--data-dir`), which ``stop()`` then
    /// removes with the server's database in it.
    private let ownsDirectory: Bool
    /// Whether ``stop()`` was called: the child's exit is then expected.
    private let stopping = Locked(false)

    static func start(_ options: BenchOptions, serveArguments: [String] = [], environment: [String: String] = [:]) async throws -> BenchTarget {
        FileLimits.raise(logger: .init(label: "greenroom.bench"))
        if let server = options.server {
            guard let url = URL(string: server), let directory = options.dataDir else {
                throw ValidationError("--server needs --data-dir (the server's secret and API key)")
            }
            return try await BenchTarget(baseURL: url, dataDirectory: directory, process: nil, ownsDirectory: false)
        }
        let directory = options.dataDir ?? FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-bench-\(UUID().uuidString)").path
        let ownsDirectory = options.dataDir == nil
        var executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        if !FileManager.default.fileExists(atPath: "/proc/self/exe") { executable = CommandLine.arguments[0] }
        var arguments = ["serve", "--port", "0", "--data-dir", directory, "--log-level", "warning"]
        if let database = options.database { arguments += ["--database", database] }
        if let durability = options.durability { arguments += ["--durability", durability] }
        let process = try await ChildProcess.start(
            executable, arguments: arguments + serveArguments,
            environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
            output: .kept(limit: 1 << 20), errors: .kept(limit: 1 << 20))
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, process.isRunning {
            if let line = process.output.split(separator: "\n").first(where: { $0.contains("is listening on") }),
               let url = line.split(separator: " ").first(where: { $0.hasPrefix("http://") }).flatMap({ URL(string: String($0)) }) {
                return try await BenchTarget(baseURL: url, dataDirectory: directory, process: process, ownsDirectory: ownsDirectory)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.stopAndWait()
        if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
        throw ValidationError("the server did not start: \(process.output)")
    }

    private init(baseURL: URL, dataDirectory: String, process: ChildProcess?, ownsDirectory: Bool) async throws {
        self.baseURL = baseURL
        self.dataDirectory = dataDirectory
        self.process = process
        self.ownsDirectory = ownsDirectory
        self.apiKey = try String(contentsOfFile: dataDirectory + "/api-key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        self.tokens = await TokenService(secret: try Secrets.readAppSecret(in: dataDirectory))
        if let process { watch(process) }
    }

    /// Ends the bench (status 3) with the server's last output when the child server exits
    /// before ``stop()``: its clients would otherwise wait for it, reconnecting, forever.
    private func watch(_ process: ChildProcess) {
        Task { [stopping] in
            let exit = await process.exited()
            guard !stopping.withLock({ $0 }) else { return }
            let output = (process.output + process.errors).split(separator: "\n").suffix(40).joined(separator: "\n")
            BenchReport.progress("the server exited during the bench (\(exit)):\n\(output)")
            Foundation.exit(3)
        }
    }

    var webSocketURL: String { ClientConfiguration(serverURL: baseURL).webSocketURL }

    /// The grant that lifts a token's write budget: a load generator is not a person, and a
    /// benchmark of what the server can store or fan out must not measure the budget.
    static let unmetered = "rate:writes=off"

    func token(_ user: String, grants: [String] = ["app:*"]) async throws -> String {
        try await tokens.issue(userId: user, ttl: 6 * 3600, grants: grants)
    }

    /// A REST call with the API key; returns the status.
    @discardableResult
    func post(_ path: String, _ body: RawJSON) async throws -> Int {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try body.jsonData()
        return try await HTTPTransport.data(for: request).1
    }

    /// A GET with the API key of `path` with `query`; returns the body and the status.
    func get(_ path: String, query: [URLQueryItem]) async throws -> (Data, Int) {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        components?.queryItems = query
        guard let url = components?.url else { throw ValidationError("cannot make a URL of \(path)") }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        return try await HTTPTransport.data(for: request)
    }

    /// A counter or gauge from the server's `/metrics` (without labels).
    func metric(_ name: String) async throws -> Double? {
        // Read afresh each time: a cached answer would hide the change being measured.
        var request = URLRequest(url: baseURL.appendingPathComponent("metrics"), cachePolicy: .reloadIgnoringLocalCacheData)
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        let (data, _) = try await HTTPTransport.data(for: request)
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    /// The child server's CPU seconds (user + system) so far, from /proc.
    var cpuSeconds: Double? { process.flatMap { ProcStat.cpuSeconds(pid: $0.pid) } }

    /// The child server's memory in bytes: `VmRSS` now, or `VmHWM` (the peak).
    func memory(peak: Bool = false) -> Int? {
        guard let pid = process?.pid,
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let key = peak ? "VmHWM:" : "VmRSS:"
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }),
              let kb = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kb * 1024
    }

    func stop() {
        stopping.withLock { $0 = true }
        process?.stopAndWait()
        if ownsDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}

/// Progress on stderr, figures as one JSON line on stdout.
enum BenchReport {
    static func progress(_ text: String) {
        StandardStreams.err("[bench] \(text)\n")
    }

    static func figures(_ figures: [String: RawJSON]) throws {
        StandardStreams.out(try RawJSON.dictionary(figures).jsonData() + Data("\n".utf8))
    }

    static func rounded(_ value: Double, _ places: Int = 3) -> RawJSON {
        let scale = pow(10, Double(places))
        return .number((value * scale).rounded() / scale)
    }
}

/// Delivery latencies in microseconds, up to two minutes, to three significant digits
/// (an HdrHistogram), read back in milliseconds.
struct Latencies {
    private var histogram = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)

    /// Records one latency (clamped to 0…2 minutes).
    mutating func record(milliseconds: Double) {
        histogram.record(UInt64(min(max(milliseconds * 1000, 0), 120_000_000)))
    }

    /// The latency at `percentile` (0–100), in milliseconds.
    func milliseconds(at percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }

    /// `latencyP50Ms` and `latencyP99Ms`, and `latencyMaxMs` when `max`.
    func figures(max: Bool = true) -> [String: RawJSON] {
        var figures = ["latencyP50Ms": BenchReport.rounded(milliseconds(at: 50)), "latencyP99Ms": BenchReport.rounded(milliseconds(at: 99))]
        if max { figures["latencyMaxMs"] = BenchReport.rounded(Double(histogram.max) / 1000) }
        return figures
    }
}

/// A counter shared by the load generator's tasks.
final class Tally: Sendable {
    private let count = Atomic<Int>(0)

    /// Adds `n`; returns the new value.
    @discardableResult
    func add(_ n: Int = 1) -> Int { count.add(n, ordering: .relaxed).newValue }

    /// The current value.
    var value: Int { count.load(ordering: .relaxed) }
}

/// Figures of a process from Linux's /proc.
enum ProcStat {
    /// The fields of /proc/PID/stat after the command name (the state is field 0).
    private static func fields(_ pid: Int32) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// CPU seconds (user + system) the process has used so far.
    static func cpuSeconds(pid: Int32) -> Double? {
        guard let fields = fields(pid), fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The machine's CPU ticks so far, in all and idle (with I/O wait), from /proc/stat.
    static func machineTicks() -> (total: UInt64, idle: UInt64)? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard ticks.count >= 5 else { return nil }
        return (ticks.reduce(0, +), ticks[3] + ticks[4])
    }

    /// The processes whose parent is `parent` and whose command name is `name`.
    static func children(of parent: Int32, named name: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                  stat[stat.index(after: open)..<close] == name, let fields = fields(pid), fields.count > 1 else { return false }
            return Int32(fields[1]) == parent
        }
    }
}
