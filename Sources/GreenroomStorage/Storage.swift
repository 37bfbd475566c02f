import Foundation
import GreenroomProtocol

/// One event to append to a stream's log.
public struct EventAppend: Sendable {
    /// The stream.
    public var stream: String
    /// The event type.
    public var type: String
    /// The event's data.
    public var data: RawJSON
    /// A key that makes a retried append return the first event instead of a second one.
    public var idempotencyKey: String?
    /// The users the event is for, when not every reader of the stream.
    package var audience: Set<String>?
    /// Who loses the right to read the stream with this event.
    package var revokes: ReadRevocation?

    /// Makes an append.
    public init(stream: String, type: String, data: RawJSON, idempotencyKey: String? = nil) {
        self.stream = stream
        self.type = type
        self.data = data
        self.idempotencyKey = idempotencyKey
    }
}

/// What an append stored: the event, and whether it was already there (same idempotency key).
public struct AppendOutcome: Sendable {
    /// The stored event.
    public var event: StreamEvent
    /// `true` when the idempotency key matched an earlier event, which is returned instead.
    public var duplicate: Bool
}

/// The state of a stream's log.
public struct StreamInfo: Sendable, Hashable {
    /// The stream's epoch.
    public var epoch: String
    /// The last offset written (0 when none).
    public var head: UInt64
    /// The highest offset removed by retention (0 when none): events after it are held.
    public var trimmed: UInt64

    /// A stream's state as a backend read it.
    package init(epoch: String, head: UInt64, trimmed: UInt64) {
        self.epoch = epoch
        self.head = head
        self.trimmed = trimmed
    }
}

/// Everything Greenroom keeps, behind one protocol with an embedded implementation (SQLite)
/// and a distributed one (PostgreSQL); both pass the same conformance tests.
///
/// Appends are linearizable per stream: offsets are gapless and unique, and an append is
/// durable when its call returns.
public protocol GreenroomStorage: RecordReading, PresenceReading {
    /// Creates or upgrades the schema to `version` (1…``latestSchemaVersion``), running
    /// only the steps the database has not run; safe when several nodes start at once.
    func migrate(upTo version: Int) async throws
    /// The schema version the database is at (0 when empty).
    func schemaVersion() async throws -> Int
    /// The schema version this code writes.
    var latestSchemaVersion: Int { get }
    /// Closes the storage; no call may follow.
    func close() async throws

    /// The user with `id`, if any.
    func user(id: String) async throws -> User?
    /// Users ordered by id, after `afterId`, matching the filters, at most `limit`.
    func listUsers(ids: [String]?, nicknamePrefix: String?, afterId: String?, limit: Int) async throws -> [User]

    /// Runs `steps` in one transaction, in order, and commits them together: records change
    /// and events are appended (offsets assigned in order) atomically; each touched
    /// stream's log is trimmed to `retentionCount` events. An isolated step that throws is
    /// undone alone and its error is its outcome.
    /// - Throws: when the database fails or a step that is not isolated throws; then nothing
    ///   of the batch is stored.
    func write(_ steps: [WriteStep], retentionCount: UInt64) async throws -> [StepOutcome]
    /// Where ``write(_:retentionCount:)`` runs its statements, when the storage has a
    /// thread of its own for them: the node's writer then runs there, so that a batch's
    /// commit and its events' hand-off to subscribers need no hop between threads. `nil`
    /// (the default) when writes have no such thread.
    var writeExecutor: (any TaskExecutor)? { get }
    /// The state of a stream's log, creating the stream (with a new epoch) when it is new.
    func streamInfo(_ stream: String) async throws -> StreamInfo
    /// Events of `stream` with offsets after `offset`, oldest first, at most `limit`.
    func readEvents(stream: String, after offset: UInt64, limit: Int) async throws -> [StreamEvent]
    /// Removes events written before `date` from every stream; returns how many.
    func trimEvents(before date: Date) async throws -> Int

    /// Extends every entry held by `node` to `until`.
    func renewPresence(node: String, until: Date) async throws
    /// The entries that expired before `date`, soonest expired first. Whoever removes one
    /// (in a transaction, with what its expiry announces) is the one that handles it: a
    /// removal returns the entry to one transaction only, whichever node runs it.
    func expiredPresence(before date: Date) async throws -> [PresenceEntry]
    /// A page of a stream's entries by join time (then client id): at most `limit`, after
    /// the entry that joined at `after.joinedAt` with `after.clientId`.
    func presence(stream: String, after: PresencePosition?, limit: Int) async throws -> [PresenceEntry]
    /// The indexed text records (``TextSearch/kind``) that hold every term of `search`,
    /// committed, in its order.
    func searchTexts(_ search: TextSearch) async throws -> [Record]
}

extension GreenroomStorage {
    /// Creates or upgrades the schema to the latest version.
    public func migrate() async throws {
        try await migrate(upTo: latestSchemaVersion)
    }

    /// None: by default writes have no thread of their own (PostgreSQL's run on the
    /// connection's event loop, the in-memory storage's anywhere).
    public var writeExecutor: (any TaskExecutor)? { nil }
}

/// Reading presence entries: the storage itself (committed data) and a write transaction
/// (its own view) both offer it.
public protocol PresenceReading: Sendable {
    /// One client's presence on a stream, if any.
    func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry?
    /// How many entries of a stream have a client id starting with `prefix`.
    func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int
    /// Everyone present on a stream, by join time.
    func presence(stream: String) async throws -> [PresenceEntry]
}
