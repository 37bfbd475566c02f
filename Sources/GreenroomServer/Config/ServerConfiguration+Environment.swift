import Foundation
import GreenroomProtocol

extension ServerConfiguration {
    /// The configuration from `GREENROOM_*` environment variables, defaults elsewhere.
    ///
    /// - Throws: ``GreenroomServerError/invalidConfiguration(_:)`` when a variable does not parse.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        let variables = EnvironmentVariables(values: environment)
        func value<T: LosslessStringConvertible>(_ name: String, _ apply: (T) -> Void) throws {
            if let parsed: T = try variables.value(name) { apply(parsed) }
        }
        try value("GREENROOM_HOST") { (v: String) in config.host = v }
        try value("GREENROOM_PORT") { (v: Int) in config.port = v }
        try value("GREENROOM_DATA_DIR") { (v: String) in config.dataDirectory = v }
        try value("GREENROOM_DATABASE") { (v: String) in config.databaseURL = v }
        try value("GREENROOM_DURABILITY") { (v: Durability) in config.durability = v }
        try value("GREENROOM_RETENTION_COUNT") { (v: UInt64) in config.retentionCount = v }
        try value("GREENROOM_RETENTION_SECONDS") { (v: Double) in config.retentionAge = v }
        try value("GREENROOM_RETENTION_SWEEP_SECONDS") { (v: Double) in config.retentionSweepInterval = v }
        try value("GREENROOM_OUTBOUND_QUEUE") { (v: Int) in config.outboundQueueLimit = v }
        try value("GREENROOM_OUTBOUND_QUEUE_BYTES") { (v: Int) in config.outboundQueueBytes = v }
        try value("GREENROOM_HEARTBEAT_SECONDS") { (v: Double) in config.heartbeatInterval = v }
        try value("GREENROOM_MAX_TOKEN_LIFETIME_SECONDS") { (v: Double) in config.maxTokenLifetime = v }
        try value("GREENROOM_METRICS_PUBLIC") { (v: Int) in config.publicMetrics = v != 0 }
        try value("GREENROOM_WRITE_QUEUE") { (v: Int) in config.writeQueueLimit = v }
        try value("GREENROOM_WRITE_QUEUE_WAIT_SECONDS") { (v: Double) in config.writeQueueWait = v }
        for kind in OperationClass.allCases {
            for perConnection in [false, true] {
                let name = "GREENROOM_RATE_\(kind.rawValue.uppercased())\(perConnection ? "_PER_CONNECTION" : "")"
                guard let text = variables.text(name) else { continue }
                guard let rate = RateLimits.parse(text) else {
                    throw GreenroomServerError.invalidConfiguration("\(name) must be PER_SECOND/BURST (e.g. 300/600) or off")
                }
                if perConnection { config.connectionRateLimits[kind] = .some(rate) } else { config.rateLimits.set(kind, rate) }
            }
        }
        try value("GREENROOM_HEADER_TIMEOUT_SECONDS") { (v: Double) in config.headerTimeout = v }
        try value("GREENROOM_IDLE_TIMEOUT_SECONDS") { (v: Double) in config.idleTimeout = v }
        try value("GREENROOM_MAX_PENDING_CONNECTIONS") { (v: Int) in config.maxPendingConnections = v }
        try value("GREENROOM_SHUTDOWN_GRACE_SECONDS") { (v: Double) in config.shutdownGrace = v }
        try value("GREENROOM_UNREADY_DELAY_SECONDS") { (v: Double) in config.unreadyDelay = v }
        try value("GREENROOM_PRESENCE_TTL_SECONDS") { (v: Double) in config.presenceTTL = v }
        try value("GREENROOM_CHANNEL_MEMBER_LIMIT") { (v: Int) in config.channelMemberLimit = v }
        try value("GREENROOM_RECONNECT_GRACE_SECONDS") { (v: Double) in config.reconnectGrace = v }
        try value("GREENROOM_MEETING_PARTICIPANT_LIMIT") { (v: Int) in config.meetingParticipantLimit = v }
        try value("GREENROOM_PUBSUB_PERSISTED_PER_TOPIC") { (v: Int) in config.pubSubPersistedPerTopic = v }
        try value("GREENROOM_LIVESTREAM_LIMIT") { (v: Int) in config.livestreamLimit = v }
        try value("GREENROOM_VIDEO_MAX_BYTES") { (v: Int64) in config.videoMaxBytes = v }
        try value("GREENROOM_VIDEO_WORKERS") { (v: Int) in config.videoWorkers = v }
        try value("GREENROOM_VIDEO_QUEUE") { (v: Int) in config.videoQueueLimit = v }
        try value("GREENROOM_VIDEO_MAX_PER_USER") { (v: Int) in config.videoMaxPerUser = v }
        try value("GREENROOM_CHANNELS_PER_USER") { (v: Int) in config.channelsPerUser = v }
        try value("GREENROOM_RECEIPT_BATCH_MEMBERS") { (v: Int) in config.receiptBatchMembers = v }
        try value("GREENROOM_ONLINE_STATE") { (v: Bool) in config.onlineState = v }
        try value("GREENROOM_VIDEO_BYTES_PER_USER") { (v: Int64) in config.videoBytesPerUser = v }
        try value("GREENROOM_FILE_MAX_BYTES") { (v: Int64) in config.fileMaxBytes = v }
        try value("GREENROOM_FILE_BYTES_PER_USER") { (v: Int64) in config.fileBytesPerUser = v }
        try value("GREENROOM_FILE_PENDING_PER_USER") { (v: Int) in config.filePendingPerUser = v }
        if let types = variables.list("GREENROOM_FILE_TYPES") { config.fileTypes = types.map { $0.lowercased() } }
        try value("GREENROOM_CONNECTIONS_PER_USER") { (v: Int) in config.connectionsPerUser = v }
        try value("GREENROOM_VIDEO_PROCESSING_SECONDS") { (v: Double) in config.videoProcessingLimit = v }
        try value("GREENROOM_FFPROBE") { (v: String) in config.ffprobePath = v }
        try value("GREENROOM_FFMPEG") { (v: String) in config.ffmpegPath = v }
        config.janusURLs = variables.list("GREENROOM_JANUS_URL") ?? config.janusURLs
        try value("GREENROOM_JANUS") { (v: String) in config.janusExecutable = v }
        try value("GREENROOM_MEDIA_ICE_INTERFACES") { (v: String) in config.mediaICEInterfaces = v }
        try value("GREENROOM_TLS_CERT") { (v: String) in config.tlsCertificatePath = v }
        try value("GREENROOM_TLS_KEY") { (v: String) in config.tlsKeyPath = v }
        try WebhookSettings.read(variables, into: &config.webhooks)
        try PushSettings.read(variables, into: &config.push)
        try MediaNetworkSettings.read(variables, into: &config.mediaNetwork)
        try TracingSettings.read(variables, into: &config.tracing)
        try config.validate()
        return config
    }

    /// Checks that every setting is in range.
    public func validate() throws {
        guard (0...65535).contains(port) else { throw GreenroomServerError.invalidConfiguration("port \(port) is out of range") }
        guard retentionCount >= 1 else { throw GreenroomServerError.invalidConfiguration("retention count must be at least 1") }
        guard retentionAge > 0 else { throw GreenroomServerError.invalidConfiguration("retention age must be positive") }
        guard outboundQueueLimit >= 16 else { throw GreenroomServerError.invalidConfiguration("outbound queue limit must be at least 16") }
        guard outboundQueueBytes >= 256 << 10 else {
            throw GreenroomServerError.invalidConfiguration("the outbound queue must hold at least 256 KiB (four of the largest frames)")
        }
        if let databaseURL {
            _ = try DatabaseURL(databaseURL)
            guard durability == .disk else {
                throw GreenroomServerError.invalidConfiguration(
                    "durability \(durability) is for the embedded SQLite storage; on PostgreSQL every commit waits for the database's disk")
            }
        }
        guard presenceTTL >= 1 else { throw GreenroomServerError.invalidConfiguration("presence TTL must be at least 1 second") }
        guard unreadyDelay >= 0, unreadyDelay <= 3_600 else {
            throw GreenroomServerError.invalidConfiguration("the unready delay must be 0 to 3,600 seconds")
        }
        guard reconnectGrace >= 0 else { throw GreenroomServerError.invalidConfiguration("the reconnect grace period must not be negative") }
        guard videoMaxBytes >= 1 else { throw GreenroomServerError.invalidConfiguration("the video size limit must be positive") }
        guard (1...64).contains(videoWorkers) else { throw GreenroomServerError.invalidConfiguration("video workers must be 1–64") }
        guard receiptBatchMembers >= 0 else { throw GreenroomServerError.invalidConfiguration("GREENROOM_RECEIPT_BATCH_MEMBERS cannot be negative") }
        guard channelsPerUser >= 1 else { throw GreenroomServerError.invalidConfiguration("a user must be let create a channel") }
        guard videoMaxPerUser >= 1 else { throw GreenroomServerError.invalidConfiguration("a user must be let have a video") }
        guard videoBytesPerUser >= 1 else { throw GreenroomServerError.invalidConfiguration("a user's videos must be let take a byte") }
        guard connectionsPerUser >= 1 else { throw GreenroomServerError.invalidConfiguration("a user must be let connect") }
        guard (1...100_000).contains(videoQueueLimit) else { throw GreenroomServerError.invalidConfiguration("the video queue must hold 1–100,000") }
        guard videoProcessingLimit >= 0.1, videoProcessingLimit <= 86_400 else {
            throw GreenroomServerError.invalidConfiguration("the video processing limit must be 0.1 s to a day")
        }
        guard (0...256).contains(livestreamLimit) else { throw GreenroomServerError.invalidConfiguration("the livestream limit must be 0–256") }
        guard pubSubPersistedPerTopic >= 1 else { throw GreenroomServerError.invalidConfiguration("a topic must keep a persisted message") }
        guard meetingParticipantLimit >= 1 else { throw GreenroomServerError.invalidConfiguration("the meeting participant limit must be at least 1") }
        guard channelMemberLimit >= 2 else { throw GreenroomServerError.invalidConfiguration("the channel member limit must be at least 2") }
        for url in janusURLs where !(url.hasPrefix("ws://") || url.hasPrefix("wss://")) {
            throw GreenroomServerError.invalidConfiguration("the Janus URL \(url) must start with ws:// or wss://")
        }
        guard Set(janusURLs).count == janusURLs.count else {
            throw GreenroomServerError.invalidConfiguration("a Janus URL is listed twice")
        }
        if !janusURLs.isEmpty && janusExecutable != nil {
            throw GreenroomServerError.invalidConfiguration("use an external Janus (janusURL) or run one (janusExecutable), not both")
        }
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw GreenroomServerError.invalidConfiguration("TLS needs both a certificate (--tls-cert) and its private key (--tls-key)")
        }
        guard headerTimeout >= 0.1, headerTimeout <= 3_600, idleTimeout >= 0.1, idleTimeout <= 86_400 else {
            throw GreenroomServerError.invalidConfiguration("the header timeout must be 0.1 s to an hour, the idle timeout 0.1 s to a day")
        }
        guard writeQueueLimit >= 1, writeQueueWait >= 0, writeQueueWait <= 600 else {
            throw GreenroomServerError.invalidConfiguration("the write queue must hold at least one change and wait 0–600 s")
        }
        guard maxPendingConnections >= 1 else {
            throw GreenroomServerError.invalidConfiguration("at least one connection must be let wait for its first request")
        }
        if let maxTokenLifetime, !(maxTokenLifetime >= 1) {
            throw GreenroomServerError.invalidConfiguration("the longest token lifetime must be at least 1 second")
        }
        guard heartbeatInterval >= 1 else { throw GreenroomServerError.invalidConfiguration("heartbeat interval must be at least 1 second") }
        do {
            try webhooks.validate()
            try push.validate()
            try tracing.validate()
            try mediaNetwork.validate()
        } catch let error as GreenroomError {
            throw GreenroomServerError.invalidConfiguration(error.message)
        }
    }
}
