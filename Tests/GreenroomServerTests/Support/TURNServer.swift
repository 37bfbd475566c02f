import Foundation
import GreenroomCore
@testable import GreenroomServer

/// A coturn (`turnserver`, Debian's `coturn`) for the media tests: TURN over TCP, and over
/// TLS on a port of its own with a certificate the test made (no UDP or DTLS listeners, so
/// a client reaches it over TCP or not at all), REST API credentials with a secret of its
/// own, relaying to loopback peers too. Found through `GREENROOM_TEST_TURNSERVER` or on `PATH`.
final class TURNServer: Sendable {
    let address: String
    let port: Int
    let tlsPort: Int
    let secret = "turn-secret-" + UUID().uuidString
    let directory: String
    private let process: ChildProcess

    /// coturn's `turnserver`, or `nil` after reporting the skip (a failure under
    /// `GREENROOM_REQUIRE_ALL=1`).
    static func find(for what: String) -> String? {
        if let found = TestEnvironment.program("GREENROOM_TEST_TURNSERVER", "turnserver") { return found }
        Skips.skip(what, because: "turnserver not found (GREENROOM_TEST_TURNSERVER; Debian: apt-get install coturn)")
        return nil
    }

    /// Starts coturn listening and relaying on `address`; returns once it takes TCP
    /// connections.
    init(executable: String, address: String = "127.0.0.1") async throws {
        self.address = address
        port = try JanusProcess.freePort()
        tlsPort = try JanusProcess.freePort()
        directory = TestServer.makeDataDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let (certificate, key) = try TestCertificateAuthority(name: "Greenroom TURN test CA").issueServerCertificate(for: address, in: directory)
        process = try await ChildProcess.start(executable, arguments: [
            "-n", "--no-cli", "--no-udp", "--no-dtls", "--fingerprint",
            "--listening-ip=\(address)", "--relay-ip=\(address)", "--listening-port=\(port)",
            "--tls-listening-port=\(tlsPort)", "--cert=\(certificate)", "--pkey=\(key)",
            "--use-auth-secret", "--static-auth-secret=\(secret)", "--realm=greenroom",
            "--allow-loopback-peers", "--verbose", "--log-file=\(directory)/turn.log", "--simple-log",
            "--pidfile=\(directory)/turn.pid",
        ])
        for _ in 0..<100 {
            if (try? RawSocket(port: port, host: address)) != nil { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        process.stopAndWait()
        throw TestTimeout(what: "coturn did not listen on \(address):\(port); its log: \(directory)/turn.log")
    }

    /// Its URL for clients: TURN over TCP.
    var url: String { "turn:\(address):\(port)?transport=tcp" }
    /// Its URL for clients over TLS.
    var tlsURL: String { "turns:\(address):\(tlsPort)?transport=tcp" }

    /// What it logged.
    var log: String { (try? String(contentsOfFile: directory + "/turn.log", encoding: .utf8)) ?? "" }

    /// Stops it: SIGTERM, SIGKILL two seconds later.
    func stop() {
        process.stopAndWait()
    }
}
