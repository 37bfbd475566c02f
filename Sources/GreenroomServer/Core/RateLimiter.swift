import Foundation
import GreenroomProtocol

/// What a client does, for rate limiting: each class has its own budget.
enum OperationClass: String, CaseIterable, Sendable {
    /// Changes: messages, reactions, channels, publishing, meetings, live events, uploads.
    case writes
    /// Reading: gets, lists, history.
    case reads
    /// `stream.subscribe`.
    case subscribes
    /// `presence.join` and `presence.leave`.
    case presence
    /// Live media signalling (`media.*`): offers, answers, ICE candidates.
    case media
    /// Video uploads over REST: creating a video, appending a chunk, completing an upload.
    case uploads

    /// The last parts of the names of operations that only read.
    private static let readingVerbs: Set<Substring> = [
        "get", "list", "me", "members", "messages", "feeds", "invitationPreference", "getPushTrigger", "unsubscribe",
    ]

    /// The class of a WebSocket operation.
    static func of(op: String) -> OperationClass {
        if op == StreamOperation.subscribe.name { return .subscribes }
        if op == StreamOperation.presenceJoin.name || op == StreamOperation.presenceLeave.name { return .presence }
        if op.hasPrefix("media.") { return .media }
        let verb = op.lastIndex(of: ".").map { op[op.index(after: $0)...] } ?? op[...]
        return readingVerbs.contains(verb) ? .reads : .writes
    }
}

/// A rate: how many a second on average, and how many at once after a quiet while.
public struct Rate: Sendable, Hashable {
    /// Tokens added a second.
    public var perSecond: Double
    /// The most tokens a bucket holds.
    public var burst: Double

    /// Makes a rate.
    public init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// The budgets of each user on each node, by operation class (`GREENROOM_RATE_<CLASS>`,
/// `PER_SECOND/BURST`, e.g. `GREENROOM_RATE_WRITES=100/200`; `off` for none). The defaults
/// are sized so that `greenroom bench` runs untouched (its busiest user, a `bench store`
/// sender, stores about 450 messages a second): they stop a runaway or hostile client at a
/// sixth or so of a node's writes; an app whose users act like people can set them far
/// lower.
public struct RateLimits: Sendable, Hashable {
    /// Changes.
    public var writes: Rate? = Rate(perSecond: 1_000, burst: 2_000)
    /// Reads.
    public var reads: Rate? = Rate(perSecond: 1_000, burst: 2_000)
    /// Subscriptions: the burst covers a client resubscribing its 512 streams at once.
    public var subscribes: Rate? = Rate(perSecond: 100, burst: 1_024)
    /// Presence joins and leaves (each a durable write).
    public var presence: Rate? = Rate(perSecond: 20, burst: 100)
    /// Media signalling.
    public var media: Rate? = Rate(perSecond: 200, burst: 1_000)
    /// Upload requests: the SDK's 1 MiB chunks at 50 a second are 50 MiB/s.
    public var uploads: Rate? = Rate(perSecond: 50, burst: 100)

    /// The defaults.
    public init() {}

    /// The budget of a class, `nil` when unlimited.
    func rate(for kind: OperationClass) -> Rate? {
        switch kind {
        case .writes: writes
        case .reads: reads
        case .subscribes: subscribes
        case .presence: presence
        case .media: media
        case .uploads: uploads
        }
    }

    /// Sets a class's budget.
    mutating func set(_ kind: OperationClass, _ rate: Rate?) {
        switch kind {
        case .writes: writes = rate
        case .reads: reads = rate
        case .subscribes: subscribes = rate
        case .presence: presence = rate
        case .media: media = rate
        case .uploads: uploads = rate
        }
    }

    /// Parses `PER_SECOND/BURST` or `off`.
    static func parse(_ text: String) -> Rate?? {
        if text.lowercased() == "off" { return .some(nil) }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let rate = Double(parts[0]), let burst = Double(parts[1]),
              rate.isFinite, burst.isFinite, rate > 0, burst >= 1 else { return nil }
        return .some(Rate(perSecond: rate, burst: burst))
    }
}

/// Token buckets by user and operation class, on this node: a command takes a token from
/// its user's bucket of its class, and without one is refused with `rateLimited` and the
/// milliseconds until one is there, so one user cannot take more than its share whatever
/// it sends or however many connections it opens. The app's backend (the API key) has no
/// bucket.
final class RateLimiter: Sendable {
    private struct Key: Hashable {
        let user: String
        let kind: OperationClass
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let limits: RateLimits
    private let buckets = Locked<[Key: Bucket]>([:])
    /// Past this many buckets, the full ones (their users quiet for a while) are dropped.
    static let pruneAt = 50_000

    init(_ limits: RateLimits) {
        self.limits = limits
    }

    /// Takes a token of `kind` for `user`; `nil` when there was one, else how many
    /// milliseconds until there is.
    func take(_ user: String, _ kind: OperationClass, now: ContinuousClock.Instant = .now) -> Int? {
        guard let rate = limits.rate(for: kind) else { return nil }
        let key = Key(user: user, kind: kind)
        return buckets.withLock { all -> Int? in
            var bucket = all[key] ?? Bucket(tokens: rate.burst, updated: now)
            bucket.tokens = min(rate.burst, bucket.tokens + Self.seconds(now - bucket.updated) * rate.perSecond)
            bucket.updated = now
            defer {
                all[key] = bucket
                if all.count > Self.pruneAt { Self.prune(&all, now: now, limits: limits) }
            }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / rate.perSecond * 1000).rounded(.up)))
        }
    }

    /// Takes a token of `kind` for `user`; `nil` when there was one, else the
    /// `rateLimited` error (with `retryAfterMs`) to answer.
    func refusal(_ user: String, _ kind: OperationClass) -> GreenroomError? {
        take(user, kind).map { wait in
            GreenroomError(rateLimited: "too many \(kind.rawValue) for \(user); try again in \(wait) ms", retryAfterMs: wait)
        }
    }

    /// Throws `rateLimited` (with `retryAfterMs`) unless `user` has a token of `kind`.
    func check(_ user: String, _ kind: OperationClass) throws {
        if let refusal = refusal(user, kind) { throw refusal }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func prune(_ all: inout [Key: Bucket], now: ContinuousClock.Instant, limits: RateLimits) {
        all = all.filter { key, bucket in
            guard let rate = limits.rate(for: key.kind) else { return false }
            return bucket.tokens + seconds(now - bucket.updated) * rate.perSecond < rate.burst
        }
    }
}
