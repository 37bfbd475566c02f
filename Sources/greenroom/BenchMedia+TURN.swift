import ArgumentParser
import Foundation
import GreenroomServer

/// The coturn `bench media --turn-viewers` runs: TURN over TCP only (no UDP or DTLS listener,
/// so a client reaches it over TCP or not at all) on a free loopback port, REST API
/// credentials with a secret of the run's own. It relays from this machine's first IPv4
/// address that is not loopback, where Janus offers its candidates (it leaves `lo` out even
/// when told to use only `lo`; loopback peers are allowed too, for a Janus that offers them).
struct BenchTURN: Sendable {
    let process: ChildProcess
    let port: Int
    let secret: String
    let directory: String

    /// The process id, for its CPU.
    var pid: Int32 { process.pid }

    /// What the server is started with to hand its viewers this coturn.
    var serveArguments: [String] {
        ["--turn-url", "turn:127.0.0.1:\(port)?transport=tcp", "--turn-secret", secret]
    }

    /// Starts coturn (`turnserver` as given, or `GREENROOM_TURNSERVER`, or on `PATH`) and
    /// waits until it takes TCP connections.
    static func start(_ executable: String?) async throws -> BenchTURN {
        guard let executable = executable ?? ProcessInfo.processInfo.environment["GREENROOM_TURNSERVER"] ?? Serve.onPath("turnserver") else {
            throw ValidationError("--turn-viewers needs coturn: apt-get install coturn, or --turnserver PATH")
        }
        let port = try JanusProcess.freePort()
        let secret = "bench-" + UUID().uuidString
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-bench-turn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let process = try await ChildProcess.start(executable, arguments: [
            "-n", "--no-cli", "--no-udp", "--no-dtls", "--no-tls", "--fingerprint",
            "--listening-ip=127.0.0.1", "--relay-ip=\(Self.relayAddress())", "--listening-port=\(port)",
            "--use-auth-secret", "--static-auth-secret=\(secret)", "--realm=greenroom-bench",
            "--allow-loopback-peers", "--log-file=\(directory)/turn.log", "--simple-log", "--pidfile=\(directory)/turn.pid",
        ], grace: .seconds(3))
        let turn = BenchTURN(process: process, port: port, secret: secret, directory: directory)
        for _ in 0..<100 {
            if LoopbackTCP.accepts(port) { return turn }
            try await Task.sleep(for: .milliseconds(100))
        }
        turn.stop()
        throw ValidationError("coturn did not listen on 127.0.0.1:\(port) within 10 s (\(executable))")
    }

    /// Stops coturn and removes its log.
    func stop() {
        process.stopAndWait()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// This machine's first IPv4 address that is not loopback, or loopback's when it has none.
    static func relayAddress() -> String {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return "127.0.0.1" }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let socketAddress = entry.pointee.ifa_addr, socketAddress.pointee.sa_family == sa_family_t(AF_INET),
                  entry.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, entry.pointee.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(MemoryLayout<sockaddr_in>.size)
            if getnameinfo(socketAddress, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 {
                return String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return "127.0.0.1"
    }
}
