import Foundation
import GreenroomProtocol
import GreenroomStorage

/// Everything an operator can set about a Greenroom server.
///
/// Every setting has a default and an environment variable (read by
/// ``ServerConfiguration/fromEnvironment(_:)``); the command line's flags win over both.
public struct ServerConfiguration: Sendable {
    /// The address to listen on (`GREENROOM_HOST`, default `127.0.0.1`).
    public var host: String = "127.0.0.1"
    /// The port to listen on; 0 picks a free one (`GREENROOM_PORT`, default 8080).
    public var port: Int = 8080
    /// Where the database, the app secret and the API key live (`GREENROOM_DATA_DIR`, default `./greenroom-data`).
    public var dataDirectory: String = "./greenroom-data"
    /// A PostgreSQL database shared by several nodes, `postgres://user:password@host:port/database`
    /// (`GREENROOM_DATABASE`); without it the node keeps its data in SQLite in the data directory.
    /// Every node of an app must use the same app secret and API key (copy the data directory's
    /// `app-secret` and `api-key` files to each node).
    public var databaseURL: String?
    /// Whether a commit waits for the disk before the change is acknowledged
    /// (`GREENROOM_DURABILITY`, `disk` or `process`, default `disk`; see ``Durability``).
    public var durability: Durability = .disk
    /// How many events each stream's log keeps at the most (`GREENROOM_RETENTION_COUNT`, default 10,000).
    public var retentionCount: UInt64 = 10_000
    /// How long each stream's log keeps an event (`GREENROOM_RETENTION_SECONDS`, default 86,400: one day).
    public var retentionAge: TimeInterval = 86_400
    /// How often events past their age are removed (`GREENROOM_RETENTION_SWEEP_SECONDS`, default 60).
    public var retentionSweepInterval: TimeInterval = 60
    /// How many frames may wait to be written to one client before it is disconnected as
    /// too slow (`GREENROOM_OUTBOUND_QUEUE`, default 1,024).
    public var outboundQueueLimit: Int = 1_024
    /// How many bytes may wait to be written to one client, replies, live and replayed
    /// events alike, before it is disconnected as too slow (`GREENROOM_OUTBOUND_QUEUE_BYTES`,
    /// default 8 MiB); a replay waits for room instead.
    public var outboundQueueBytes: Int = 8 << 20
    /// How long a new connection has to send its first request's headers (and, for the
    /// WebSocket, be let in) before it is closed (`GREENROOM_HEADER_TIMEOUT_SECONDS`,
    /// default 10).
    public var headerTimeout: TimeInterval = 10
    /// How long an HTTP connection may stay open with no request before it is closed
    /// (`GREENROOM_IDLE_TIMEOUT_SECONDS`, default 60). WebSockets have heartbeats instead.
    public var idleTimeout: TimeInterval = 60
    /// How many connections may be open before their first request (nobody knows who they
    /// are yet); while that many are, the server accepts no more and newcomers wait in the
    /// kernel's backlog (`GREENROOM_MAX_PENDING_CONNECTIONS`, default 1,024).
    public var maxPendingConnections: Int = 1_024
    /// How many changes may wait for the node's writer (`GREENROOM_WRITE_QUEUE`, default
    /// 10,000); more wait to be queued, for at most ``writeQueueWait``, then are refused
    /// with `overloaded`.
    public var writeQueueLimit: Int = 10_000
    /// How long a change waits for room in the writer's queue, in seconds
    /// (`GREENROOM_WRITE_QUEUE_WAIT_SECONDS`, default 5).
    public var writeQueueWait: TimeInterval = 5
    /// Each user's budget on a node by operation class (``RateLimits``).
    public var rateLimits = RateLimits()
    /// Each connection's own budget by operation class
    /// (`GREENROOM_RATE_<CLASS>_PER_CONNECTION`; by default its user's): set lower to keep one
    /// connection of a user (a runaway tab) from spending the budget its others need.
    public var connectionRateLimits = ConnectionRateLimits()
    /// Whether `GET /metrics` answers without the API key (`GREENROOM_METRICS_PUBLIC=1`;
    /// default no: the figures tell who is connected and how busy the node is).
    public var publicMetrics = false
    /// The longest a client token may live, from its `iat` to its `exp`, in seconds: longer
    /// ones are refused as `invalidToken` (`GREENROOM_MAX_TOKEN_LIFETIME_SECONDS`,
    /// `serve --max-token-lifetime`; default `nil`, no limit).
    public var maxTokenLifetime: TimeInterval?
    /// How often the server pings each client; a client that does not answer within the
    /// same time is disconnected (`GREENROOM_HEARTBEAT_SECONDS`, default 25).
    public var heartbeatInterval: TimeInterval = 25
    /// How long a presence entry lives unless its node renews it: the most a dead node's
    /// clients stay listed as present (`GREENROOM_PRESENCE_TTL_SECONDS`, default 15).
    public var presenceTTL: TimeInterval = 15
    /// How long a live event's host or a meeting's participant whose connection dropped is
    /// kept (shown disconnected or reconnecting) before it has left (`GREENROOM_RECONNECT_GRACE_SECONDS`, default 15).
    public var reconnectGrace: TimeInterval = 15
    /// The largest video upload, in bytes (`GREENROOM_VIDEO_MAX_BYTES`, default 1 GiB).
    public var videoMaxBytes: Int64 = 1 << 30
    /// How many videos are processed at once (`GREENROOM_VIDEO_WORKERS`, default 2).
    public var videoWorkers: Int = 2
    /// How many completed uploads may wait for a processing worker; past it completing an
    /// upload is refused with `rateLimited` (`GREENROOM_VIDEO_QUEUE`, default 100).
    public var videoQueueLimit: Int = 100
    /// How many videos one user may have; past it creating one is refused with
    /// `rateLimited` (`GREENROOM_VIDEO_MAX_PER_USER`, default 1,000).
    public var videoMaxPerUser: Int = 1_000
    /// How many bytes one user's videos may take together (each counted at the size its
    /// upload declared); past it creating one is refused with `rateLimited`
    /// (`GREENROOM_VIDEO_BYTES_PER_USER`, default 10 GiB).
    public var videoBytesPerUser: Int64 = 10 << 30
    /// The largest chat attachment, in bytes (`GREENROOM_FILE_MAX_BYTES`, default 25 MiB).
    public var fileMaxBytes: Int64 = 25 << 20
    /// The MIME types chat attachments may have, each exact or `type/*`
    /// (`GREENROOM_FILE_TYPES`, comma-separated); an image type is taken only when ffmpeg
    /// decodes the file as an image.
    public var fileTypes: [String] = ["image/*", "video/*", "audio/*", "application/pdf", "text/plain", "application/zip"]
    /// How many bytes one user's chat attachments may take together, each counted at its
    /// declared size until uploaded; past it uploading one is refused with `rateLimited`
    /// (`GREENROOM_FILE_BYTES_PER_USER`, default 1 GiB).
    public var fileBytesPerUser: Int64 = 1 << 30
    /// How many attachments one user may have uploaded (or be uploading) and not sent yet;
    /// past it uploading one is refused with `rateLimited` (`GREENROOM_FILE_PENDING_PER_USER`,
    /// default 20). One not sent within a day is removed.
    public var filePendingPerUser: Int = 20
    /// How many WebSocket connections one user may hold on this node at once; past it a
    /// connection is refused with `rateLimited` (`GREENROOM_CONNECTIONS_PER_USER`, default 100).
    public var connectionsPerUser: Int = 100
    /// How many channels one user may have created (and not deleted); past it creating one
    /// is refused with `rateLimited` (`GREENROOM_CHANNELS_PER_USER`, default 1,000).
    public var channelsPerUser: Int = 1_000
    /// Channels with more joined members than this announce read and delivery receipts
    /// batched: one `message.read` (and one `message.delivered`) event a second per channel
    /// on each node, carrying every position that moved (`GREENROOM_RECEIPT_BATCH_MEMBERS`,
    /// default 100).
    public var receiptBatchMembers: Int = 100
    /// Whether users' online state is kept and announced (`GREENROOM_ONLINE_STATE`, default
    /// on): each connection is listed across nodes, and a user's first and last connection
    /// signal `user.presenceChanged` to its channels.
    public var onlineState = true
    /// The longest one ffprobe or ffmpeg run on an uploaded video may take, in seconds;
    /// then it is stopped and the video ends `failed` (`GREENROOM_VIDEO_PROCESSING_SECONDS`,
    /// default 600).
    public var videoProcessingLimit: TimeInterval = 600
    /// The ffprobe to run (`GREENROOM_FFPROBE`); found on `PATH` when not set.
    public var ffprobePath: String?
    /// The ffmpeg to run (`GREENROOM_FFMPEG`); found on `PATH` when not set.
    public var ffmpegPath: String?
    /// How many participants a meeting may have (`GREENROOM_MEETING_PARTICIPANT_LIMIT`, default 1,000).
    public var meetingParticipantLimit: Int = 1_000
    /// How many persisted pub/sub messages a meeting's topic keeps, the newest; an older one
    /// goes as a new one is persisted (`GREENROOM_PUBSUB_PERSISTED_PER_TOPIC`, default 1,000).
    public var pubSubPersistedPerTopic: Int = 1_000
    /// The most HLS livestreams this node runs at once (`GREENROOM_LIVESTREAM_LIMIT`): each
    /// is an ffmpeg encoding H.264, about a core's tenth per tile here (BENCHMARKS.md).
    public var livestreamLimit: Int = 4
    /// How many members (joined and invited) a chat channel may have (`GREENROOM_CHANNEL_MEMBER_LIMIT`, default 100).
    public var channelMemberLimit: Int = Limits.defaultChannelMemberLimit
    /// How long graceful shutdown waits for WebSocket clients to close, and then for HTTP
    /// requests to finish; what remains after each wait is cut (`GREENROOM_SHUTDOWN_GRACE_SECONDS`, default 5).
    public var shutdownGrace: TimeInterval = 5
    /// How long a graceful shutdown waits, with `GET /ready` answering 503, before it asks
    /// the clients to reconnect: time for a load balancer that polls `/ready` to stop
    /// sending new clients here (`GREENROOM_UNREADY_DELAY_SECONDS`, default 0; set it to
    /// the balancer's check interval times its failure threshold, or a little more).
    public var unreadyDelay: TimeInterval = 0

    /// The URLs of external Janus servers' WebSocket APIs (`GREENROOM_JANUS_URL`, several
    /// separated by commas, e.g. `ws://10.0.0.5:8188,ws://10.0.0.6:8188`) for live audio and
    /// video; without them and without ``janusExecutable`` media operations answer
    /// `unavailable`. Each new media room is placed on one of them (the one this node has
    /// placed fewest rooms on, among those connected) and stays there; which one is stored, so
    /// with several nodes give every node the same list.
    public var janusURLs: [String] = []

    /// The one external Janus, for the common case: reads the first of ``janusURLs`` and
    /// sets the list to just it (`nil` empties it).
    public var janusURL: String? {
        get { janusURLs.first }
        set { janusURLs = newValue.map { [$0] } ?? [] }
    }
    /// A Janus the server runs and restarts itself (`GREENROOM_JANUS`; `greenroom serve --media`
    /// finds it on `PATH`), configured in `<data dir>/janus/` with its API on loopback.
    public var janusExecutable: String?
    /// The network interfaces the Janus the server runs gathers ICE candidates on
    /// (`GREENROOM_MEDIA_ICE_INTERFACES`, Janus's `ice_enforce_list`, e.g. `eth0` or `lo`
    /// when clients run on the same machine); all when not set.
    public var mediaICEInterfaces: String?

    /// A PEM file with the server's TLS certificate, its chain after it (`GREENROOM_TLS_CERT`,
    /// `serve --tls-cert`). With ``tlsKeyPath`` the server speaks only HTTPS and `wss://`;
    /// without both it speaks plain HTTP and `ws://` (behind a reverse proxy that terminates
    /// TLS, or on loopback).
    public var tlsCertificatePath: String?
    /// A PEM file with the private key of ``tlsCertificatePath`` (`GREENROOM_TLS_KEY`, `serve --tls-key`).
    public var tlsKeyPath: String?

    /// Webhook delivery to the app's backend (`GREENROOM_WEBHOOK_*`).
    public var webhooks = WebhookSettings()
    /// Push notifications through APNs (`GREENROOM_APNS_*`).
    public var push = PushSettings()
    /// STUN, TURN and NAT settings for media (`GREENROOM_TURN_*`, `GREENROOM_STUN_URLS`,
    /// `GREENROOM_MEDIA_PUBLIC_IP`, `GREENROOM_MEDIA_STUN_SERVER`).
    public var mediaNetwork = MediaNetworkSettings()
    /// Traces exported over OTLP (`GREENROOM_OTLP_*`; off by default).
    public var tracing = TracingSettings()

    /// The default configuration.
    public init() {}
}
