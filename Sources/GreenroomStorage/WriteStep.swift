import Foundation
import GreenroomProtocol

/// One unit of work in a write batch.
public struct WriteStep: Sendable {
    /// Whether the step runs in its own savepoint: when it throws, only its changes are
    /// undone and the rest of the batch commits. A step that is not isolated fails the
    /// whole batch when it throws (plain appends, which fail only when the database does).
    public var isolated: Bool
    /// The work.
    public var body: @Sendable (any StorageTransaction) async throws -> Void
    /// Records the step will read, which a backend may read for the whole batch at once
    /// beforehand (PostgreSQL does: one statement instead of a round trip per read).
    public var prefetch: [RecordKey]
    /// Streams the step will append to, which a backend may lock for the whole batch at
    /// once beforehand (PostgreSQL does).
    public var streams: [String]
    /// The W3C `traceparent` of the span that made the step, when tracing is on: a backend
    /// that tells other nodes of the step's events (PostgreSQL's notifications) passes it
    /// with them, so that their deliveries join the same trace.
    public var trace: String?

    /// Makes a step.
    public init(isolated: Bool = true, prefetch: [RecordKey] = [], streams: [String] = [],
                _ body: @escaping @Sendable (any StorageTransaction) async throws -> Void) {
        self.isolated = isolated
        self.prefetch = prefetch
        self.streams = streams
        self.body = body
    }
}

/// A record's kind, scope and id.
public struct RecordKey: Hashable, Sendable, Comparable {
    /// The record's kind.
    public var kind: String
    /// Its scope.
    public var scope: String
    /// Its id.
    public var id: String

    /// Makes a key.
    public init(kind: String, scope: String = "", id: String) {
        self.kind = kind
        self.scope = scope
        self.id = id
    }

    /// The key of `record`.
    public init(_ record: Record) { self.init(kind: record.kind, scope: record.scope, id: record.id) }

    /// Orders keys as the records' primary key does.
    public static func < (a: RecordKey, b: RecordKey) -> Bool { (a.kind, a.scope, a.id) < (b.kind, b.scope, b.id) }
}

/// What a committed step did: the new events it appended (to publish), or its error.
public typealias StepOutcome = Result<[StreamEvent], any Error>

/// The state of one write transaction shared by the backends: the streams it loaded and
/// locked, advanced in memory and written back once before commit, and the new events
/// each step appended.
package final class BatchState: Sendable {
    fileprivate struct State {
        var streams: [String: StreamInfo] = [:]
        var touched: Set<String> = []
        var events: [StreamEvent] = []
        /// The running step's ``WriteStep/trace``.
        var stepTrace: String?
        /// The trace of each new event whose step had one.
        var traces: [EventPosition: String] = [:]
    }

    /// A stream and an offset in it.
    package struct EventPosition: Hashable, Sendable {
        package var stream: String
        package var offset: UInt64
    }

    /// What a step may change, taken when it begins and restored when it fails: the
    /// streams (a few a batch) and how many events there were. The events themselves are
    /// not copied: a step only appends to them, so undoing it drops what it appended, and a
    /// step costs what it appends, not a copy of the batch's events so far.
    package struct Snapshot {
        fileprivate var streams: [String: StreamInfo]
        fileprivate var touched: Set<String>
        fileprivate var events: Int
    }

    private let state = Locked(State())

    /// An empty state, for one batch.
    package init() {}

    package func snapshot() -> Snapshot {
        state.withLock { Snapshot(streams: $0.streams, touched: $0.touched, events: $0.events.count) }
    }

    package func restore(_ snapshot: Snapshot) {
        state.withLock { state in
            state.streams = snapshot.streams
            state.touched = snapshot.touched
            guard state.events.count > snapshot.events else { return }
            if !state.traces.isEmpty {
                for event in state.events[snapshot.events...] {
                    state.traces[EventPosition(stream: event.stream, offset: event.offset)] = nil
                }
            }
            state.events.removeSubrange(snapshot.events...)
        }
    }

    /// The new events appended since `snapshot`.
    package func events(since snapshot: Snapshot) -> [StreamEvent] {
        state.withLock { Array($0.events[min(snapshot.events, $0.events.count)...]) }
    }

    /// The streams touched, with their final state, for the write-back before commit.
    package var touchedStreams: [(String, StreamInfo)] {
        state.withLock { state in state.touched.sorted().compactMap { name in state.streams[name].map { (name, $0) } } }
    }

    /// Loads (and so locks) a stream the transaction has not touched yet.
    package func lock(_ name: String, load: (String) async throws -> StreamInfo) async throws {
        guard state.withLock({ $0.streams[name] == nil }) else { return }
        let info = try await load(name)
        state.withLock { $0.streams[name] = info }
    }

    /// Gives a stream the transaction has loaded a new epoch, with everything up to its
    /// head trimmed (the backend removes the events themselves); written back at commit.
    package func retire(_ name: String, epoch: String) {
        state.withLock { state in
            guard var info = state.streams[name] else { return }
            info.epoch = epoch
            info.trimmed = info.head
            state.streams[name] = info
            state.touched.insert(name)
        }
    }

    /// Notes the trace of the step that runs next (``trace(of:)``).
    package func beginStep(trace: String?) {
        state.withLock { $0.stepTrace = trace }
    }

    /// The state of a stream the transaction has loaded.
    package func info(_ name: String) -> StreamInfo? { state.withLock { $0.streams[name] } }

    /// Appends through the backend's primitives: streams are loaded (and locked) in name
    /// order the first time the transaction touches them.
    package func append(
        _ appends: [EventAppend],
        load: (String) async throws -> StreamInfo,
        findKey: (_ stream: String, _ key: String, _ epoch: String) async throws -> StreamEvent?,
        insert: (_ event: StreamEvent, _ key: String?) async throws -> Void
    ) async throws -> [AppendOutcome] {
        for name in Set(appends.map(\.stream)).sorted() where state.withLock({ $0.streams[name] == nil }) {
            let info = try await load(name)
            state.withLock { $0.streams[name] = info }
        }
        var streams = state.withLock { $0.streams }
        let outcomes = try await EventBatch.append(appends, streams: &streams, findKey: findKey, insert: insert)
        state.withLock { state in
            state.streams = streams
            state.touched.formUnion(appends.map(\.stream))
            let new = outcomes.filter { !$0.duplicate }.map(\.event)
            state.events.append(contentsOf: new)
            if let trace = state.stepTrace {
                for event in new { state.traces[EventPosition(stream: event.stream, offset: event.offset)] = trace }
            }
        }
        return outcomes
    }

    /// The ``WriteStep/trace`` of the step that appended `event`, if it had one.
    package func trace(of event: StreamEvent) -> String? {
        state.withLock { state in
            state.traces.isEmpty ? nil : state.traces[EventPosition(stream: event.stream, offset: event.offset)]
        }
    }

    /// Runs the steps in order, isolating those that ask for it with the backend's
    /// savepoints. - Throws: the error of a step that is not isolated, or of the database.
    package static func run(
        _ steps: [WriteStep],
        in transaction: any StorageTransaction,
        batch: BatchState,
        savepoint: (String) async throws -> Void,
        rollback: (String) async throws -> Void,
        release: (String) async throws -> Void
    ) async throws -> [StepOutcome] {
        var outcomes: [StepOutcome] = []
        outcomes.reserveCapacity(steps.count)
        for (index, step) in steps.enumerated() {
            batch.beginStep(trace: step.trace)
            let before = batch.snapshot()
            guard step.isolated else {
                try await step.body(transaction)
                outcomes.append(.success(batch.events(since: before)))
                continue
            }
            let name = "s\(index)"
            try await savepoint(name)
            do {
                try await step.body(transaction)
                try await release(name)
                outcomes.append(.success(batch.events(since: before)))
            } catch let error as StorageRaceLost {
                throw error
            } catch {
                try await rollback(name)
                batch.restore(before)
                outcomes.append(.failure(error))
            }
        }
        return outcomes
    }
}

/// The database aborted the transaction to break a deadlock or a serialization conflict
/// with another node: the whole batch is run again.
package struct StorageRaceLost: Error {
    package init() {}
}

/// A value a step hands back to whoever queued it.
package final class StepResult<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)

    package init() {}

    package func set(_ newValue: Value) { value.withLock { $0 = newValue } }
    package var get: Value? { value.withLock { $0 } }
}
