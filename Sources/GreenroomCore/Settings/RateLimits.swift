import Foundation
import GreenroomProtocol
import GreenroomStorage

/// What a client does, for rate limiting: each class has its own budget.
package enum OperationClass: String, CaseIterable, Sendable {
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
    /// Uploads over REST: creating a video or a chat attachment, appending a chunk,
    /// completing an upload.
    case uploads

    /// The last parts of the names of operations that only read.
    private static let readingVerbs: Set<Substring> = [
        "get", "list", "me", "members", "messages", "feeds", "invitationPreference", "getPushTrigger", "unsubscribe", "reads", "unreadCounts", "pinnedMessages",
    ]

    /// The class of a WebSocket operation.
    package static func of(op: String) -> OperationClass {
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
    package func rate(for kind: OperationClass) -> Rate? {
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
    package mutating func set(_ kind: OperationClass, _ rate: Rate?) {
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
    package static func parse(_ text: String) -> Rate?? {
        if text.lowercased() == "off" { return .some(nil) }
        let parts = text.split(separator: "/")
        guard parts.count == 2, let rate = Double(parts[0]), let burst = Double(parts[1]),
              rate.isFinite, burst.isFinite, rate > 0, burst >= 1 else { return nil }
        return .some(Rate(perSecond: rate, burst: burst))
    }

    /// The prefix of a grant that sets a budget: `rate:writes=500/1000`.
    package static let grantPrefix = "rate:"

    /// These budgets with those a token's grants set (`rate:CLASS=PER_SECOND/BURST` or
    /// `rate:CLASS=off`); grants that do not parse are ignored.
    package func applying(grants: Set<String>) -> RateLimits {
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
    package subscript(kind: OperationClass) -> Rate?? {
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
