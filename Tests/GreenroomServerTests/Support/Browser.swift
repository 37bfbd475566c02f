import AsyncHTTPClient
import Foundation
import Greenroom
import NIOCore
import NIOFoundationCompat
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Where the media tests find Janus, Chromium and chromedriver: `GREENROOM_TEST_JANUS`,
/// `GREENROOM_TEST_CHROMIUM`, `GREENROOM_TEST_CHROMEDRIVER`, or on `PATH`.
struct MediaPrograms: Sendable {
    let janus: String
    let chromium: String?
    let chromedriver: String?

    /// Janus (and, with `browsers`, Chromium and chromedriver), or `nil` after reporting the
    /// skip (a failure under `GREENROOM_REQUIRE_ALL=1`).
    static func find(for what: String, browsers: Bool) -> MediaPrograms? {
        let janus = TestEnvironment.program("GREENROOM_TEST_JANUS", "janus")
        let chromium = TestEnvironment.program("GREENROOM_TEST_CHROMIUM", "chromium") ?? TestEnvironment.program("GREENROOM_TEST_CHROMIUM", "chromium-browser")
        let driver = TestEnvironment.program("GREENROOM_TEST_CHROMEDRIVER", "chromedriver")
        var missing: [String] = []
        if janus == nil { missing.append("janus (GREENROOM_TEST_JANUS)") }
        if browsers && chromium == nil { missing.append("chromium (GREENROOM_TEST_CHROMIUM)") }
        if browsers && driver == nil { missing.append("chromedriver (GREENROOM_TEST_CHROMEDRIVER)") }
        if let janus, missing.isEmpty { return MediaPrograms(janus: janus, chromium: chromium, chromedriver: driver) }
        Skips.skip(what, because: "\(missing.joined(separator: ", ")) not found (Debian: apt-get install janus chromium chromium-driver)")
        return nil
    }
}

/// A chromedriver with headless Chromiums (fake camera and microphone, ICE on loopback),
/// driven over WebDriver's HTTP API.
final class BrowserDriver: Sendable {
    let port: Int
    /// Where its API answers: loopback, or the address inside its namespace.
    let host: String
    /// The `Host` its requests name: chromedriver answers only requests that name one of its
    /// own addresses, which behind a NAT is not the one the test reaches it at.
    private let hostHeader: String?
    private let process: ChildProcess
    private let chromium: String

    /// A chromedriver on this machine, or inside `namespace` (its browsers then reach only
    /// the namespace's host end, as a separate machine would).
    init(programs: MediaPrograms, namespace: NetworkNamespace? = nil) async throws {
        guard let driver = programs.chromedriver, let chromium = programs.chromium else { throw TestTimeout(what: "no chromedriver") }
        self.chromium = chromium
        let port = try JanusProcess.freePort()
        self.port = port
        // chromedriver's profiles and Chromium's own temporary folders (its singleton
        // socket, its scoped directories) go to a folder removed when the tests end: a
        // browser that is killed leaves them behind otherwise.
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = TemporaryPaths.makeDirectory().path
        if let namespace {
            host = namespace.address
            hostHeader = namespace.privateAddress.map { "\($0):\(port)" }
            try await namespace.forward(tcpPort: port)
            let (program, arguments) = namespace.inside(driver, ["--port=\(port)", "--allowed-ips=\(namespace.hostAddress)"])
            process = try await ChildProcess.start(program, arguments: arguments, environment: environment)
        } else {
            host = "127.0.0.1"
            hostHeader = nil
            process = try await ChildProcess.start(driver, arguments: ["--port=\(port)"], environment: environment)
        }
        Watchdog.note("chromedriver started on port \(port)")
        var lastError = "no answer"
        for _ in 0..<100 {
            do {
                if try await request("GET", "/status").1 == 200 { return }
            } catch {
                if !process.isRunning { break }
                lastError = "\(error)"
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.stop()
        throw TestTimeout(what: "chromedriver did not start (\(process.exit.map { "it exited with \($0)" } ?? lastError))")
    }

    /// A new headless browser; `secureOrigins` are plain-HTTP origins it lets use the camera
    /// and microphone (loopback always may). With `acceptingAnyCertificate` it takes TLS
    /// certificates no system CA signed (a test's own, for TURN over TLS).
    func open(secureOrigins: [String] = [], acceptingAnyCertificate: Bool = false) async throws -> Browser {
        var arguments: [RawJSON] = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
            "--autoplay-policy=no-user-gesture-required", "--window-size=800,600",
        ]
        if acceptingAnyCertificate { arguments.append("--ignore-certificate-errors") }
        if !secureOrigins.isEmpty { arguments.append(.string("--unsafely-treat-insecure-origin-as-secure=" + secureOrigins.joined(separator: ","))) }
        let capabilities: RawJSON = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": .string(chromium), "args": .array(arguments)],
        ]]]
        Watchdog.note("opening a browser")
        let (answer, status) = try await request("POST", "/session", body: capabilities)
        guard status == 200, let session = answer["value"]?["sessionId"]?.stringValue else {
            throw TestTimeout(what: "chromedriver refused a session: \(answer)")
        }
        return Browser(driver: self, session: session)
    }

    func request(_ method: String, _ path: String, body: RawJSON? = nil) async throws -> (RawJSON, Int) {
        var request = HTTPClientRequest(url: "http://\(host):\(port)\(path)")
        request.method = .RAW(value: method)
        if let hostHeader { request.headers.replaceOrAdd(name: "Host", value: hostHeader) }
        if let body {
            request.body = .bytes(ByteBuffer(bytes: try body.jsonBytes()))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 16 << 20)
        return ((try? RawJSON(json: Data(buffer: data))) ?? .nil, Int(response.status.code))
    }

    /// Stops chromedriver (SIGTERM, SIGKILL 2 s later), then kills what is left of its
    /// process group: the browsers of sessions a failing test did not close, which
    /// chromedriver leaves running (and drawing their fake cameras) when it is stopped.
    func stop() {
        Watchdog.note("stopping chromedriver on port \(port)")
        process.stopAndWait()
        // chromedriver leads its own group (it was started in a new one) and its browsers
        // stay in it; the group's id is not reused while one of them lives.
        kill(-process.pid, SIGKILL)
    }
}

/// One browser window on the demo page.
struct Browser: Sendable {
    let driver: BrowserDriver
    let session: String

    func go(_ url: String) async throws {
        Watchdog.note("browser \(session.prefix(8)) goes to \(url.prefix(120))")
        let (answer, status) = try await driver.request("POST", "/session/\(session)/url", body: ["url": .string(url)])
        guard status == 200 else { throw TestTimeout(what: "navigation failed: \(answer)") }
    }

    /// Runs `script` (a function body; a promise it returns is awaited) and returns its value.
    @discardableResult
    func run(_ script: String) async throws -> RawJSON {
        let (answer, status) = try await driver.request("POST", "/session/\(session)/execute/sync", body: ["script": .string(script), "args": []])
        guard status == 200 else { throw TestTimeout(what: "script failed: \(answer["value"]?["message"]?.stringValue ?? "\(answer)")") }
        return answer["value"] ?? .nil
    }

    /// The demo's state (`window.demo.state()`), `nil` before the page has loaded.
    func state() async throws -> RawJSON { try await run("return window.demo ? window.demo.state() : null") }

    /// Per feed: `{participantId, framesDecoded, audioBytes}` from `getStats()`.
    func stats() async throws -> RawJSON { try await run("return window.demo ? window.demo.stats() : {}") }

    /// Frames decoded and audio bytes received from `participantId`'s feed (0 when none).
    func received(from participantId: String) async throws -> (frames: Double, audio: Double) {
        let feeds = try await stats().dictionaryValue ?? [:]
        let feed = feeds.values.first { $0["participantId"]?.stringValue == participantId }
        return (feed?["framesDecoded"]?.numberValue ?? 0, feed?["audioBytes"]?.numberValue ?? 0)
    }

    /// Waits until this browser decodes `participantId`'s video (more frames than `after`)
    /// and receives its audio; returns the frames decoded.
    @discardableResult
    func waitForMedia(from participantId: String, after: Double = 0, what: String) async throws -> Double {
        var last = (frames: 0.0, audio: 0.0)
        Watchdog.note("browser \(session.prefix(8)) waits for media: \(what)")
        for _ in 0..<300 {
            last = try await received(from: participantId)
            if last.frames > after + 10 && last.audio > 0 { return last.frames }
            try await Task.sleep(for: .milliseconds(200))
        }
        // The whole page state and every feed's figures, to tell a feed never subscribed from one that carries nothing.
        let page = (try? await state()).map { String(describing: $0) } ?? "unreadable"
        let feeds = (try? await stats()).map { String(describing: $0) } ?? "unreadable"
        throw TestTimeout(what: "\(what): \(last.frames) frames and \(last.audio) audio bytes from \(participantId); page \(page); feeds \(feeds)")
    }

    /// A PNG of the window.
    func screenshot() async throws -> Data {
        let (answer, status) = try await driver.request("GET", "/session/\(session)/screenshot")
        guard status == 200, let data = answer["value"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
            throw TestTimeout(what: "no screenshot: \(answer)")
        }
        return data
    }

    func close() async {
        Watchdog.note("closing browser \(session.prefix(8))")
        _ = try? await driver.request("DELETE", "/session/\(session)")
    }
}
