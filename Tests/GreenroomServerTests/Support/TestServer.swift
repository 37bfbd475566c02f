import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Logging
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A real server on an ephemeral port with its own temporary data directory.
struct TestServer {
    let server: GreenroomServer
    let dataDirectory: String
    /// Whether ``start(dataDirectory:port:_:)`` made the data directory, which
    /// ``shutdown()`` then removes; a directory the test named is the test's to remove.
    let ownsDataDirectory: Bool
    /// The SDK clients made for this server, disconnected by ``withServer(_:_:)`` at the end
    /// so that they do not go on reconnecting to a server that is gone.
    let clients = Locked<[GreenroomClient]>([])

    var port: Int { server.port }
    var url: URL { server.baseURL }
    var apiKey: String { server.secrets.apiKey }

    static func makeDataDirectory() -> String {
        TemporaryPaths.makeDirectory().path
    }

    static func start(dataDirectory: String? = nil, port: Int = 0, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        var config = ServerConfiguration()
        config.port = port
        config.dataDirectory = dataDirectory ?? makeDataDirectory()
        let made = dataDirectory == nil ? config.dataDirectory : nil
        config.shutdownGrace = 2
        configure(&config)
        let owned = config.dataDirectory == made
        if let made, !owned { try? FileManager.default.removeItem(atPath: made) }
        Watchdog.note("starting a server (\(config.databaseURL == nil ? "SQLite" : "PostgreSQL")\(config.janusURL != nil || config.janusExecutable != nil ? ", media" : ""))")
        var logger = Logger(label: "greenroom.test")
        logger.logLevel = ProcessInfo.processInfo.environment["GREENROOM_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        let server: GreenroomServer
        do {
            server = try await GreenroomServer.start(configuration: config, logger: logger)
        } catch {
            if owned { try? FileManager.default.removeItem(atPath: config.dataDirectory) }
            throw error
        }
        Watchdog.note("server on port \(server.port) started")
        return TestServer(server: server, dataDirectory: config.dataDirectory, ownsDataDirectory: owned)
    }

    func token(_ user: String, ttl: TimeInterval = 3600, grants: [String] = []) async throws -> String {
        try await server.token(userId: user, ttl: ttl, grants: grants)
    }

    /// A connected SDK client for `user`.
    func client(_ user: String, grants: [String] = [], configure: (inout ClientConfiguration) -> Void = { _ in }) async throws -> GreenroomClient {
        var config = ClientConfiguration(serverURL: url)
        config.initialReconnectDelay = .milliseconds(50)
        config.maxReconnectDelay = .milliseconds(500)
        // Tests check behaviour, not speed: a loaded machine must not fail them.
        config.commandTimeout = .seconds(60)
        configure(&config)
        let client = track(GreenroomClient(configuration: config))
        try await client.connect(token: try await token(user, grants: grants))
        return client
    }

    /// A REST call with the server API key (or `key`); returns the status and the JSON body.
    func rest(_ method: String, _ path: String, body: RawJSON? = nil, key: String? = nil, headers: [String: String] = [:]) async throws -> (Int, RawJSON) {
        var request = URLRequest(url: URL(string: path, relativeTo: url)!)
        request.httpMethod = method
        if let key = key ?? Optional(apiKey), !key.isEmpty { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try body.jsonData()
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, status) = try await HTTPTransport.data(for: request)
        let json = data.isEmpty ? RawJSON.nil : ((try? RawJSON(json: data)) ?? .string(String(decoding: data, as: UTF8.self)))
        return (status, json)
    }

    /// Remembers `client` for ``disconnectClients()``.
    @discardableResult
    func track(_ client: GreenroomClient) -> GreenroomClient {
        clients.withLock { $0.append(client) }
        return client
    }

    /// Disconnects every tracked client.
    func disconnectClients() async {
        let all = clients.withLock { list in
            defer { list = [] }
            return list
        }
        await withTaskGroup(of: Void.self) { group in
            for client in all { group.addTask { await client.disconnect() } }
        }
    }

    func shutdown() async throws {
        Watchdog.note("shutting down the server on port \(port)")
        try await server.shutdown()
        Watchdog.note("the server on port \(port) stopped")
        if ownsDataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }
}

/// Runs `body` with a fresh server, shutting it down afterwards even when `body` throws.
func withServer<T>(_ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T) async throws -> T {
    try await HeavyTests.shared {
        let server = try await TestServer.start(configure)
        do {
            let result = try await body(server)
            await server.disconnectClients()
            try await server.shutdown()
            return result
        } catch {
            await server.disconnectClients()
            try? await server.shutdown()
            throw error
        }
    }
}

/// Waits until `condition` holds, polling; fails the test after `timeout`.
func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    Watchdog.note("waiting until \(what)")
    while clock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("timed out waiting until \(what)")
    throw TestTimeout(what: what)
}

struct TestTimeout: Error { let what: String }

/// Runs `body`, failing with a timeout error when it takes longer than `timeout`.
func withTimeout<T: Sendable>(_ timeout: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        guard let first = try await group.next(), let value = first else {
            group.cancelAll()
            Issue.record("timed out: \(what)")
            throw TestTimeout(what: what)
        }
        group.cancelAll()
        return value
    }
}

/// Collects `count` events from a subscription, with the recovery reports seen on the way.
func collect(_ subscription: StreamSubscription, count: Int, timeout: Duration = .seconds(60)) async throws -> (events: [StreamEvent], recoveries: [Bool]) {
    try await collect(subscription, "\(count) events", timeout: timeout) { $0.count >= count }
}

/// Reads a subscription's events until `enough` says so (or the timeout), with the
/// `recovered` of each resubscription on the way.
func collect(_ subscription: StreamSubscription, _ what: String, timeout: Duration = .seconds(60),
             until enough: @escaping @Sendable ([StreamEvent]) -> Bool) async throws -> (events: [StreamEvent], recoveries: [Bool]) {
    try await withTimeout(timeout, "\(what) on \(subscription.stream)") {
        var events: [StreamEvent] = []
        var recoveries: [Bool] = []
        for await update in subscription.updates {
            switch update {
            case .event(let event): events.append(event)
            case .resubscribed(let recovered): recoveries.append(recovered)
            }
            if enough(events) { break }
        }
        return (events, recoveries)
    }
}

/// Tests that put hundreds of clients on the machine run alone: the other server tests
/// wait for them (and they for the others), so that a 2-core machine serves each in time.
/// Light tests share the machine with each other.
///
/// Swift Testing's time limit counts from a test's start, the wait for its turn included,
/// and a light test queued behind a few heavy turns (a livestream test's is over a minute)
/// waited past a 3-minute limit on a loaded machine. Suites therefore carry a limit longer
/// than a whole run (``wholeRun``); what bounds a test's own time is the ``Watchdog``, which
/// starts with its turn and ends the run with a trail past ``Watchdog/limit``.
enum HeavyTests {
    static let turns = TurnLock()
    /// Set inside a heavy test, whose own servers need no further turn.
    @TaskLocal static var inside = false

    /// Runs `body` with the machine to itself.
    static func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await turns.acquire(exclusive: true)
        let watched = Watchdog.begin()
        defer { Watchdog.end(watched) }
        do {
            let value = try await $inside.withValue(true) { try await body() }
            await turns.release(exclusive: true)
            return value
        } catch {
            await turns.release(exclusive: true)
            throw error
        }
    }

    /// Runs a light test's `body` beside other light tests.
    static func shared<T>(_ body: () async throws -> T) async throws -> T {
        if inside { return try await body() }
        try await turns.acquire(exclusive: false)
        let watched = Watchdog.begin()
        defer { Watchdog.end(watched) }
        do {
            let value = try await body()
            await turns.release(exclusive: false)
            return value
        } catch {
            await turns.release(exclusive: false)
            throw error
        }
    }
}

/// A first-come, first-served readers-writer lock for async code. A waiter whose task is
/// cancelled (a test past its time limit) leaves the queue with `CancellationError`, so one
/// stuck test fails alone instead of holding up every test queued behind it.
actor TurnLock {
    private struct Waiter {
        let id: Int
        let exclusive: Bool
        let continuation: CheckedContinuation<Void, any Error>
    }
    private var sharedHolders = 0
    private var exclusiveHeld = false
    private var waiters: [Waiter] = []
    private var nextId = 0

    func acquire(exclusive: Bool) async throws {
        if waiters.isEmpty && canGo(exclusive) {
            take(exclusive)
            return
        }
        nextId += 1
        let id = nextId
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiters.append(Waiter(id: id, exclusive: exclusive, continuation: continuation))
                }
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    func release(exclusive: Bool) {
        if exclusive { exclusiveHeld = false } else { sharedHolders -= 1 }
        admitWaiters()
    }

    private func abandon(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
        admitWaiters()
    }

    private func admitWaiters() {
        while let first = waiters.first, canGo(first.exclusive) {
            waiters.removeFirst()
            take(first.exclusive)
            first.continuation.resume()
        }
    }

    private func canGo(_ exclusive: Bool) -> Bool {
        exclusive ? !exclusiveHeld && sharedHolders == 0 : !exclusiveHeld
    }

    private func take(_ exclusive: Bool) {
        if exclusive { exclusiveHeld = true } else { sharedHolders += 1 }
    }
}
