import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import Logging
import ServiceLifecycle

/// A local Janus that Greenroom starts and keeps running (`greenroom serve --media`): its
/// configuration is generated in `<data dir>/janus/` (the VideoRoom plugin and the
/// WebSocket transport only, both on loopback, no admin API), and when it dies it is
/// started again after a second.
package final class JanusProcess: Service, Sendable {
    package let executable: String
    package let directory: String
    /// The port of its WebSocket API on 127.0.0.1.
    package let port: Int
    private let logger: Logger
    private let current = Locked<ChildProcess?>(nil)

    /// The WebSocket URL of its API.
    package var url: String { "ws://127.0.0.1:\(port)" }

    /// The process id of the running Janus (for tests that kill it).
    package var pid: Int32? { current.withLock { process in process.map { $0.isRunning ? $0.pid : nil } ?? nil } }

    /// Writes the configuration for a Janus at `executable` into `directory`, with its API
    /// on a free loopback port.
    /// `iceInterfaces` limits the interfaces Janus gathers ICE candidates on (`lo` when
    /// everything runs on one machine); all when `nil`. `network` gives its public address
    /// behind a one-to-one NAT, or a STUN server to find it with.
    package init(executable: String, directory: String, iceInterfaces: String?, network: MediaNetworkSettings = MediaNetworkSettings(),
                 logger: Logger) throws {
        self.executable = executable
        self.directory = directory
        self.logger = logger
        self.port = try Self.freePort()
        try JanusConfiguration(port: port, directory: directory, libraries: try Self.libraryFolder(of: executable),
                               iceInterfaces: iceInterfaces, network: network).write()
    }

    package func run() async throws {
        await withGracefulShutdownHandler {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                let status = await runOnce()
                guard !Task.isCancelled && !Task.isShuttingDownGracefully else { break }
                logger.error("Janus exited (\(status.map(String.init(describing:)) ?? "it did not start")); starting it again in a second; its log: \(directory)/janus.log")
                try? await Task.sleep(for: .seconds(1))
            }
        } onGracefulShutdown: {
            self.stop()
        }
        stop()
    }

    /// Runs Janus until it exits; returns how it ended (`nil` when it could not start).
    private func runOnce() async -> ChildProcess.Exit? {
        let process: ChildProcess
        do {
            process = try await ChildProcess.start(
                executable, arguments: ["-F", directory, "-C", "\(directory)/janus.jcfg", "-o", "-L", "\(directory)/janus.log"])
        } catch {
            logger.error("cannot start Janus at \(executable): \(error)")
            return nil
        }
        current.withLock { $0 = process }
        logger.info("started Janus (pid \(process.pid)) with its API on \(url)")
        // The wait ends with the exit; a cancelled run stops Janus first.
        return await withTaskCancellationHandler {
            await process.exited()
        } onCancel: {
            process.stop()
        }
    }

    /// Stops Janus: SIGTERM, then SIGKILL if it is still there after two seconds.
    package func stop() {
        current.withLock { $0 }?.stop()
    }

    /// A port free on 127.0.0.1 now.
    package static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw GreenroomServerError.invalidConfiguration("cannot open a socket to find a free port") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw GreenroomServerError.invalidConfiguration("cannot find a free port for Janus") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Where Janus's plugins and transports are: `<prefix>/lib/<triplet>/janus` (Debian) or
    /// `<prefix>/lib/janus` (a build from source), beside the `bin` that holds `executable`.
    package static func libraryFolder(of executable: String) throws -> String {
        let prefix = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().path
        let fileManager = FileManager.default
        var candidates = ["\(prefix)/lib/janus"]
        if let entries = try? fileManager.contentsOfDirectory(atPath: "\(prefix)/lib") {
            candidates += entries.sorted().map { "\(prefix)/lib/\($0)/janus" }
        }
        guard let folder = candidates.first(where: { fileManager.fileExists(atPath: "\($0)/plugins/libjanus_videoroom.so") }) else {
            throw GreenroomServerError.invalidConfiguration(
                "Janus's VideoRoom plugin (libjanus_videoroom.so) is not in \(prefix)/lib/janus or \(prefix)/lib/*/janus")
        }
        return folder
    }
}

/// The configuration Greenroom writes for the Janus it runs: only the VideoRoom plugin and
/// the WebSocket transport load, the API is on loopback, sessions time out after 60 s
/// without a keepalive.
package struct JanusConfiguration {
    package let port: Int
    package let directory: String
    /// The folder holding `plugins/`, `transports/`, `events/` and `loggers/`.
    package let libraries: String
    /// The interfaces ICE may use (`ice_enforce_list`), or all.
    package let iceInterfaces: String?
    /// The public address (`nat_1_1_mapping`) and STUN server (`stun_server`, `stun_port`).
    package var network = MediaNetworkSettings()
    /// Janus's `slowlink_threshold`: lost (or retransmitted) packets a second that make it
    /// say a handle's link is slow.
    package static let slowlinkThreshold = 8

    /// The `nat` block's settings, one per line.
    var natLines: [String] {
        var lines: [String] = []
        if let stun = network.janusSTUNServer, let colon = stun.lastIndex(of: ":") {
            lines.append("stun_server = \"\(stun[..<colon])\"")
            lines.append("stun_port = \(stun[stun.index(after: colon)...])")
        }
        // Janus then offers the public address in place of the private one it gathers.
        if let address = network.publicAddress { lines.append("nat_1_1_mapping = \"\(address)\"") }
        if let iceInterfaces { lines.append("ice_enforce_list = \"\(iceInterfaces)\"") }
        return lines
    }

    package func write() throws {
        let fileManager = FileManager.default
        try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        func others(_ folder: String, keeping kept: String) -> String {
            let all = (try? fileManager.contentsOfDirectory(atPath: "\(libraries)/\(folder)")) ?? []
            return all.filter { $0.hasSuffix(".so") && $0 != kept }.sorted().joined(separator: ",")
        }
        let main = """
            general: {
                configs_folder = "\(directory)"
                plugins_folder = "\(libraries)/plugins"
                transports_folder = "\(libraries)/transports"
                events_folder = "\(libraries)/events"
                loggers_folder = "\(libraries)/loggers"
                debug_level = 3
                session_timeout = 60
                server_name = "Greenroom media"
            }
            media: {
                rtp_port_range = "20000-60000"
                # `slowlink` events (off by default): this many packets a second lost on the
                # way in, or asked for again (NACK) on the way out, rate a connection poor.
                slowlink_threshold = \(Self.slowlinkThreshold)
            }
            nat: {
            \(natLines.map { "    " + $0 }.joined(separator: "\n"))
            }
            plugins: {
                disable = "\(others("plugins", keeping: "libjanus_videoroom.so"))"
            }
            transports: {
                disable = "\(others("transports", keeping: "libjanus_websockets.so"))"
            }
            events: {
                broadcast = false
                disable = "\(others("events", keeping: ""))"
            }
            loggers: {
                disable = "\(others("loggers", keeping: ""))"
            }

            """
        let videoRoom = """
            general: {
                string_ids = false
            }

            """
        let webSockets = """
            general: {
                json = "compact"
                ws = true
                ws_port = \(port)
                ws_ip = "127.0.0.1"
                wss = false
            }
            admin: {
                admin_ws = false
                admin_wss = false
            }

            """
        for (name, text) in [("janus.jcfg", main), ("janus.plugin.videoroom.jcfg", videoRoom), ("janus.transport.websockets.jcfg", webSockets)] {
            let path = "\(directory)/\(name)"
            guard fileManager.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw GreenroomServerError.invalidConfiguration("cannot write \(path)")
            }
        }
    }
}
