import Foundation
import GreenroomProtocol

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
