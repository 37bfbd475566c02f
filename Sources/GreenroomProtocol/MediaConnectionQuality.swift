import Foundation

extension MediaOperation {
    /// ``MediaStatsArgs`` → ``EmptyResult``: what the caller's connections in a room measure
    /// now (its packet loss, round trip, jitter, whether its media is connected), sent every
    /// couple of seconds while it has media there. The server rates the caller's connection
    /// quality from it and from the SFU's own signs, and announces changes to the room with
    /// `media.connectionQuality`.
    public static let reportStats = WireOperation<MediaStatsArgs, EmptyResult>("media.reportStats")
}

extension MediaEventType {
    /// A participant's connection quality changed; a signal (not kept in the stream's log)
    /// with data ``MediaConnectionQualityEvent``, at most one per participant every
    /// ``MediaConnectionQualityEvent/minimumInterval`` seconds.
    public static let connectionQuality = "media.connectionQuality"
}

/// How well a participant's media gets through, as the hosted services' quality listeners
/// rate it.
public enum ConnectionQuality: String, Codable, Sendable, Hashable, CaseIterable {
    /// Under 2% of the packets lost, a round trip under 200 ms, jitter under 30 ms.
    case excellent
    /// Some loss (under 10%), a round trip under 500 ms, jitter under 100 ms.
    case good
    /// More loss, delay or jitter than that, or the media server says the link drops
    /// packets (Janus's `slowlink`).
    case poor
    /// The media does not connect (ICE disconnected or failed), or the participant stopped
    /// reporting while it has media in the room.
    case lost

    /// The rating of a report's figures: the worst that any of them earns.
    public static func rate(_ stats: MediaStatsArgs) -> ConnectionQuality {
        guard stats.connected else { return .lost }
        let loss = stats.packetLoss ?? 0, roundTrip = stats.roundTrip ?? 0, jitter = stats.jitter ?? 0
        if loss >= 0.1 || roundTrip >= 0.5 || jitter >= 0.1 { return .poor }
        if loss >= 0.02 || roundTrip >= 0.2 || jitter >= 0.03 { return .good }
        return .excellent
    }
}

/// The arguments of `media.reportStats`: the caller's own measurements in one room, over the
/// time since its previous report.
public struct MediaStatsArgs: Codable, Sendable, Hashable {
    /// The room's stream.
    public var stream: String
    /// Whether the caller's peer connections in the room are connected (ICE `connected` or
    /// `completed`); `false` rates it `lost`.
    public var connected: Bool
    /// The share of packets lost (0–1), the worse of what the caller receives and what the
    /// far end says it lost of what the caller sends; `nil` when not measured.
    public var packetLoss: Double?
    /// The round trip to the media server in seconds; `nil` when not measured.
    public var roundTrip: Double?
    /// The jitter of what the caller receives, in seconds; `nil` when not measured.
    public var jitter: Double?

    /// Makes a report.
    public init(stream: String, connected: Bool, packetLoss: Double? = nil, roundTrip: Double? = nil, jitter: Double? = nil) {
        self.stream = stream
        self.connected = connected
        self.packetLoss = packetLoss
        self.roundTrip = roundTrip
        self.jitter = jitter
    }
}

/// The data of `media.connectionQuality`.
public struct MediaConnectionQualityEvent: Codable, Sendable, Hashable {
    /// The shortest time between two of a participant's announcements, in seconds.
    public static let minimumInterval: Double = 2

    /// The participant's id in a meeting; its user id in a live event.
    public var participantId: String
    /// Its user.
    public var userId: String
    /// Its connection's quality now.
    public var quality: ConnectionQuality

    /// Makes the event.
    public init(participantId: String, userId: String, quality: ConnectionQuality) {
        self.participantId = participantId
        self.userId = userId
        self.quality = quality
    }
}
