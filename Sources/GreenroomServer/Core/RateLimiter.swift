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

/// The budgets of each user on each node, and of each connection, by operation class
/// (`GREENROOM_RATE_<CLASS>` and `GREENROOM_RATE_<CLASS>_PER_CONNECTION`,
/// `PER_SECOND/BURST`, e.g. `GREENROOM_RATE_WRITES=100/200`; `off` for none).
///
/// The defaults are far above what a person does (a hundred messages a second) and low
/// enough that one user flooding a node at ten times its budget leaves the latency of
/// everyone else's writes within the machine's noise (`greenroom bench abuse`). A token may
/// carry budgets of its own for what is not a person — a bot, an importer, a load
/// generator: the grant `rate:CLASS=PER_SECOND/BURST` (or `rate:CLASS=off`) sets the class's
/// budget for the calls made with that token, of its user and of its connections.
public struct RateLimits: Sendable, Hashable {
    /// Changes: messages, reactions, channels, publishing, meetings, live events.
    public var writes: Rate? = Rate(perSecond: 100, burst: 200)
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

    /// The prefix of a grant that sets a budget: `rate:writes=500/1000`.
    static let grantPrefix = "rate:"

    /// These budgets with those a token's grants set (`rate:CLASS=PER_SECOND/BURST` or
    /// `rate:CLASS=off`); grants that do not parse are ignored.
    func applying(grants: Set<String>) -> RateLimits {
        var limits = self
        for grant in grants where grant.hasPrefix(Self.grantPrefix) {
            let setting = grant.dropFirst(Self.grantPrefix.count)
            guard let equals = setting.firstIndex(of: "="),
                  let kind = OperationClass(rawValue: String(setting[..<equals])),
                  let rate = Self.parse(String(setting[setting.index(after: equals)...])) else { continue }
            limits.set(kind, rate)
        }
        return limits
    }
}

/// Each connection's own budgets by operation class, beside its user's
/// (`GREENROOM_RATE_<CLASS>_PER_CONNECTION`): `nil`, the default, for its user's budget;
/// `.some(nil)` for none.
public struct ConnectionRateLimits: Sendable, Hashable {
    /// Changes.
    public var writes: Rate?? = nil
    /// Reads.
    public var reads: Rate?? = nil
    /// Subscriptions.
    public var subscribes: Rate?? = nil
    /// Presence joins and leaves.
    public var presence: Rate?? = nil
    /// Media signalling.
    public var media: Rate?? = nil
    /// Upload requests.
    public var uploads: Rate?? = nil

    /// Each connection with its user's budgets.
    public init() {}

    /// The budget of a class: `nil` for its user's.
    subscript(kind: OperationClass) -> Rate?? {
        get {
            switch kind {
            case .writes: writes
            case .reads: reads
            case .subscribes: subscribes
            case .presence: presence
            case .media: media
            case .uploads: uploads
            }
        }
        set {
            switch kind {
            case .writes: writes = newValue
            case .reads: reads = newValue
            case .subscribes: subscribes = newValue
            case .presence: presence = newValue
            case .media: media = newValue
            case .uploads: uploads = newValue
            }
        }
    }

    /// A connection's budgets: these where set, the user's `limits` elsewhere.
    public func over(_ limits: RateLimits) -> RateLimits {
        var connection = limits
        for kind in OperationClass.allCases {
            if let rate = self[kind] { connection.set(kind, rate) }
        }
        return connection
    }
}

/// One token bucket: up to `burst` tokens, refilled at `perSecond`.
struct TokenBucket {
    private(set) var tokens: Double
    private var updated: ContinuousClock.Instant
    /// The rate it was last filled at (a token's grants may change it).
    private(set) var rate: Rate

    init(_ rate: Rate, now: ContinuousClock.Instant) {
        self.tokens = rate.burst
        self.updated = now
        self.rate = rate
    }

    /// Takes a token at `rate`; `nil` when there was one, else how many milliseconds
    /// until there is.
    mutating func take(at rate: Rate, now: ContinuousClock.Instant) -> Int? {
        refill(at: rate, now: now)
        if tokens >= 1 {
            tokens -= 1
            return nil
        }
        return max(1, Int(((1 - tokens) / rate.perSecond * 1000).rounded(.up)))
    }

    /// Gives back a token taken at `now` for a command that was refused after all.
    mutating func giveBack() {
        tokens = min(rate.burst, tokens + 1)
    }

    /// Whether it would be full by `now`, so that forgetting it changes nothing.
    func isFull(at now: ContinuousClock.Instant) -> Bool {
        tokens + Self.seconds(now - updated) * rate.perSecond >= rate.burst
    }

    private mutating func refill(at rate: Rate, now: ContinuousClock.Instant) {
        self.rate = rate
        tokens = min(rate.burst, tokens + Self.seconds(now - updated) * rate.perSecond)
        updated = now
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// The buckets of one connection, by operation class, and the budgets it acts under (the
/// node's, with those its token's grants set).
final class ConnectionBudget: Sendable {
    /// Its user's budgets.
    let user: RateLimits
    /// Its own budgets.
    let connection: RateLimits
    private let buckets = Locked<[OperationClass: TokenBucket]>([:])

    init(user: RateLimits, connection: RateLimits) {
        self.user = user
        self.connection = connection
    }

    /// Takes a token of `kind` from this connection's own bucket; `nil` when there was one
    /// (or the class has no budget), else how many milliseconds until there is.
    func take(_ kind: OperationClass, now: ContinuousClock.Instant) -> Int? {
        guard let rate = connection.rate(for: kind) else { return nil }
        return buckets.withLock { all in
            var bucket = all[kind] ?? TokenBucket(rate, now: now)
            defer { all[kind] = bucket }
            return bucket.take(at: rate, now: now)
        }
    }

    /// Gives back the token of `kind` just taken, for a command its user's budget refused.
    func giveBack(_ kind: OperationClass) {
        buckets.withLock { all in all[kind]?.giveBack() }
    }
}

/// Token buckets by user and operation class on this node, and by connection: a command
/// takes a token from its connection's bucket of its class, then from its user's, and
/// without one is refused with `rateLimited` and the milliseconds until one is there, so
/// one user cannot take more than its share whatever it sends or however many connections
/// it opens, and one connection not more than its own. The app's backend (the API key) has
/// no bucket.
final class RateLimiter: Sendable {
    private struct Key: Hashable {
        let user: String
        let kind: OperationClass
    }

    /// Each user's budgets.
    let limits: RateLimits
    /// Each connection's budgets.
    let connectionLimits: RateLimits
    private let buckets = Locked<[Key: TokenBucket]>([:])
    /// Past this many buckets, the full ones (their users quiet for a while) are dropped.
    static let pruneAt = 50_000

    init(_ limits: RateLimits, perConnection: RateLimits) {
        self.limits = limits
        self.connectionLimits = perConnection
    }

    /// The budgets a connection made with `identity`'s token acts under.
    func budget(for identity: Identity) -> ConnectionBudget {
        ConnectionBudget(user: limits.applying(grants: identity.grants), connection: connectionLimits.applying(grants: identity.grants))
    }

    /// Takes a token of `kind` for `user` at `rate` (`nil`: no budget); `nil` when there was
    /// one, else how many milliseconds until there is.
    func take(_ user: String, _ kind: OperationClass, at rate: Rate?, now: ContinuousClock.Instant = .now) -> Int? {
        guard let rate else { return nil }
        let key = Key(user: user, kind: kind)
        return buckets.withLock { all -> Int? in
            var bucket = all[key] ?? TokenBucket(rate, now: now)
            defer {
                all[key] = bucket
                if all.count > Self.pruneAt { all = all.filter { !$0.value.isFull(at: now) } }
            }
            return bucket.take(at: rate, now: now)
        }
    }

    /// Takes a token of `kind` from `connection`'s bucket and one from its user's; `nil`
    /// when both had one, else the `rateLimited` error (with `retryAfterMs`) to answer. A
    /// refused command takes nothing: the connection's token goes back when its user's
    /// budget refuses, so the wait a refusal names is the wait for the next command.
    func refusal(_ connection: ClientConnection, _ kind: OperationClass) -> GreenroomError? {
        let now = ContinuousClock.now
        let user = connection.identity.userId
        if let wait = connection.budget.take(kind, now: now) {
            return Self.refusal("too many \(kind.rawValue) on this connection of \(user)", wait)
        }
        guard let wait = take(user, kind, at: connection.budget.user.rate(for: kind), now: now) else { return nil }
        connection.budget.giveBack(kind)
        return Self.refusal("too many \(kind.rawValue) for \(user)", wait)
    }

    /// Throws `rateLimited` (with `retryAfterMs`) unless the user of `identity` has a token
    /// of `kind` at the budget its token sets (a REST call: no connection of its own).
    func check(_ identity: Identity, _ kind: OperationClass) throws {
        let rate = identity.grants.isEmpty ? limits.rate(for: kind) : limits.applying(grants: identity.grants).rate(for: kind)
        if let wait = take(identity.userId, kind, at: rate) {
            throw Self.refusal("too many \(kind.rawValue) for \(identity.userId)", wait)
        }
    }

    private static func refusal(_ what: String, _ wait: Int) -> GreenroomError {
        GreenroomError(rateLimited: "\(what); try again in \(wait) ms", retryAfterMs: wait)
    }
}
