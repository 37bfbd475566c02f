import ArgumentParser
import Foundation
import GreenroomServer
import Logging

/// `greenroom serve`: runs the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (settings from flags, then GREENROOM_* variables, then defaults).")

    @Option(help: "Address to listen on (GREENROOM_HOST, default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on; 0 picks one (GREENROOM_PORT, default 8080).") var port: Int?
    @Option(name: .customLong("data-dir"), help: "Data directory (GREENROOM_DATA_DIR, default ./greenroom-data).") var dataDir: String?
    @Option(help: "A PostgreSQL database shared by several nodes, postgres://user:password@host:port/db (GREENROOM_DATABASE); SQLite in the data directory without it.") var database: String?
    @Option(help: "disk: each commit waits for the disk before a change is acknowledged; process: for the operating system only, faster, and a machine crash can lose the last seconds (GREENROOM_DURABILITY, default disk; SQLite only).") var durability: Durability?
    @Flag(help: "Run a local Janus for live audio and video (janus on PATH, or GREENROOM_JANUS), restarted if it dies.") var media = false
    @Option(name: .customLong("janus-url"), help: "Use an external Janus's WebSocket API for live audio and video, e.g. ws://127.0.0.1:8188; repeat it for several, each room placed on one (GREENROOM_JANUS_URL, comma-separated).") var janusURL: [String] = []
    @Option(name: .customLong("media-ice-interfaces"), help: "Interfaces the local Janus offers media on, e.g. eth0, or lo when clients run on this machine (GREENROOM_MEDIA_ICE_INTERFACES; all by default).") var mediaICEInterfaces: String?
    @Option(name: .customLong("turn-url"), help: "A TURN URL handed to clients with credentials Greenroom issues, e.g. turn:turn.example.com:3478?transport=tcp; repeat it for several (GREENROOM_TURN_URLS, comma-separated; needs --turn-secret).") var turnURL: [String] = []
    @Option(name: .customLong("turn-secret"), help: "coturn's static-auth-secret (use-auth-secret): TURN credentials follow its REST API scheme (GREENROOM_TURN_SECRET).") var turnSecret: String?
    @Option(name: .customLong("media-max-bitrate"), help: "The most a publisher may send of its video in a room, in kbps: Janus's room bitrate cap (GREENROOM_MEDIA_MAX_BITRATE_KBPS; none by default).") var mediaMaxBitrate: Int?
    @Option(name: .customLong("media-public-ip"), help: "The public IPv4 address of the local Janus behind a one-to-one NAT, its nat_1_1_mapping (GREENROOM_MEDIA_PUBLIC_IP).") var mediaPublicIP: String?
    @Option(name: .customLong("media-stun-server"), help: "A STUN server, host:port, the local Janus finds its public address with (GREENROOM_MEDIA_STUN_SERVER).") var mediaSTUNServer: String?
    @Option(name: .customLong("tls-cert"), help: "A PEM certificate (its chain after it) to serve HTTPS and wss:// (GREENROOM_TLS_CERT; needs --tls-key).") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert (GREENROOM_TLS_KEY).") var tlsKey: String?
    @Option(name: .customLong("max-token-lifetime"), help: "Refuse client tokens that live longer than this many seconds from iat to exp (GREENROOM_MAX_TOKEN_LIFETIME_SECONDS; no limit by default).") var maxTokenLifetime: Double?
    @Option(name: .customLong("unready-delay"), help: "On SIGTERM, answer 503 at /ready and keep serving this many seconds before asking clients to reconnect, so a load balancer stops sending new ones first; a second SIGTERM or SIGINT ends the wait (GREENROOM_UNREADY_DELAY_SECONDS, default 0).") var unreadyDelay: Double?
    @Option(name: .customLong("otlp-endpoint"), help: "Export traces over OTLP/HTTP to this collector, e.g. http://127.0.0.1:4318: each command's span from its frame through its write to every node's delivery (GREENROOM_OTLP_ENDPOINT; off by default).") var otlpEndpoint: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error (GREENROOM_LOG_LEVEL, default info).") var logLevel: String?

    func run() async throws {
        var config = try ServerConfiguration.fromEnvironment()
        if let host { config.host = host }
        if let port { config.port = port }
        if let dataDir { config.dataDirectory = dataDir }
        if let database { config.databaseURL = database }
        if let durability { config.durability = durability }
        if let maxTokenLifetime { config.maxTokenLifetime = maxTokenLifetime }
        if let unreadyDelay { config.unreadyDelay = unreadyDelay }
        if !janusURL.isEmpty { config.janusURLs = janusURL }
        if let mediaICEInterfaces { config.mediaICEInterfaces = mediaICEInterfaces }
        if !turnURL.isEmpty { config.mediaNetwork.turnURLs = turnURL }
        if let turnSecret { config.mediaNetwork.turnSecret = turnSecret }
        if let mediaPublicIP { config.mediaNetwork.publicAddress = mediaPublicIP }
        if let mediaMaxBitrate { config.mediaNetwork.maxPublisherBitrate = mediaMaxBitrate }
        if let mediaSTUNServer { config.mediaNetwork.janusSTUNServer = mediaSTUNServer }
        if let tlsCert { config.tlsCertificatePath = tlsCert }
        if let tlsKey { config.tlsKeyPath = tlsKey }
        if let otlpEndpoint { config.tracing.endpoint = otlpEndpoint }
        if media && config.janusExecutable == nil {
            guard let found = Self.onPath("janus") else {
                throw ValidationError("--media needs Janus: install it (Debian: apt-get install janus) or set GREENROOM_JANUS to its path")
            }
            config.janusExecutable = found
        }
        try config.validate()
        LoggingSystem.bootstrap(ServerLogHandler.init)
        var logger = Logger(label: "greenroom")
        let level = logLevel ?? ProcessInfo.processInfo.environment["GREENROOM_LOG_LEVEL"] ?? "info"
        logger.logLevel = Logger.Level(rawValue: level) ?? .info
        FileLimits.raise(logger: logger)
        let server = try await GreenroomServer.start(configuration: config, logger: logger, signals: [.sigint, .sigterm])
        say("""
            Greenroom is listening on \(server.baseURL.absoluteString) (WebSocket \(server.webSocketURL.absoluteString))
            data directory: \(config.dataDirectory)
            TLS: \(config.tlsCertificatePath.map { "on (\($0))" } ?? "off: plain HTTP and ws:// (--tls-cert/--tls-key, or a reverse proxy in front)")
            storage: \(config.databaseURL.map { _ in "PostgreSQL (several nodes may share it)" } ?? "SQLite in the data directory, durability \(config.durability)")
            app secret (signs client tokens, mode 0600): \(server.secrets.appSecretPath)\(server.secrets.created ? " (new)" : "")
            server API key (REST: Authorization: Bearer KEY, mode 0600): \(server.secrets.apiKeyPath)
            media: \(config.janusExecutable.map { "Janus run by Greenroom (\($0))" } ?? (config.janusURLs.isEmpty ? nil : "Janus at \(config.janusURLs.joined(separator: ", "))") ?? "off (--media or --janus-url to enable)")
            TURN: \(config.mediaNetwork.issuesTURN ? config.mediaNetwork.turnURLs.joined(separator: ", ") : "none (--turn-url/--turn-secret for clients behind firewalls)")
            try media in a browser: \(server.baseURL.absoluteString)/demo/
            """)
        try await server.waitUntilStopped()
        say("Greenroom stopped")
    }

    /// The first executable named `name` in `PATH`.
    static func onPath(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Writes a line to standard output at once (print is buffered when piped); nothing
    /// when no one reads it any more.
    private func say(_ text: String) {
        StandardStreams.out(Data((text + "\n").utf8))
    }
}

/// `--durability disk|process`.
extension Durability: ExpressibleByArgument {}
