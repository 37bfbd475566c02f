import Foundation
import GreenroomProtocol
import Logging
import PostgresNIO
import ServiceLifecycle
import Tracing

/// Carries events between nodes that share one PostgreSQL database.
///
/// Every node listens on `greenroom_events`; every append announces its event there on
/// commit. This node's own appends are offered directly too, for lower latency. A single
/// task then publishes each stream's events to the local hub strictly in offset order: a
/// notification is a hint, the log is the truth, so an event whose notification was missed
/// (a gap, or a listener that reconnected) is read from the log before anything after it.
///
/// Signals (``StreamSignal``: never stored) go on the same channel as
/// `{"signal": {...}, "origin": id}`, sent one at a time by one task, and reach this
/// node's hub at once and the other nodes' hubs as their listeners read them.
final class PostgresEventRelay: Service, Sendable {
    /// What the relay is given; an event's or a hint's `trace` is the span of the write
    /// that stored it, when traced (read from the notification's `traceparent`).
    enum Input: Sendable {
        case event(StreamEvent, trace: ServiceContext?)
        case hint(stream: String, offset: UInt64, trace: ServiceContext?)
        case catchUp
        case signal(StreamSignal)
    }

    /// The most bytes a signal's notification may have (PostgreSQL's limit is 8,000).
    static let maxSignalBytes = 7_000

    private let storage: PostgresStorage
    private let hub: EventHub
    private let metrics: ServerMetrics
    private let logger: Logger
    private let inputs: AsyncStream<Input>
    private let continuation: AsyncStream<Input>.Continuation
    /// The last offset published to the hub (or followed from, ``follow(_:after:)``), by
    /// stream, for streams with local subscribers.
    private struct Positions {
        var last: [String: UInt64] = [:]
        /// Past this many streams, a follow first forgets those without local subscribers
        /// (a stream nobody follows any more stays until an event of it comes otherwise).
        var pruneAt = 1_024
    }
    private let published = Locked(Positions())
    /// Signals of this node to announce to the others, in order.
    private let outgoing: AsyncStream<String>
    private let outgoingContinuation: AsyncStream<String>.Continuation
    /// This relay's mark on its signals, so that it does not deliver its own twice.
    let origin = RandomHex.string(bytes: 8)

    init(storage: PostgresStorage, hub: EventHub, metrics: ServerMetrics, logger: Logger) {
        self.storage = storage
        self.hub = hub
        self.metrics = metrics
        self.logger = logger
        (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        // Signals are best effort: when the database falls behind, the oldest wait and the
        // newest beyond a thousand are dropped.
        (outgoing, outgoingContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingOldest(1_000))
    }

    /// Delivers a signal of this node to its hub now and announces it to the other nodes.
    func relay(_ signal: StreamSignal) {
        hub.signal(signal, metrics: metrics)
        guard let data = try? WireCoding.encode(SignalNotice(signal: signal, origin: origin)), data.count <= Self.maxSignalBytes else {
            logger.warning("a signal on \(signal.stream) is too large to relay to other nodes")
            return
        }
        outgoingContinuation.yield(String(decoding: data, as: UTF8.self))
    }

    /// Notes a subscription on this node that replayed `stream` up to `head`: when the relay
    /// has published none of the stream's events since it had local subscribers, it starts
    /// from `head`. A later notification past `head + 1`, or a catch-up after the listener
    /// (re)connects, then reads the events in between from the log; without a starting
    /// point, the first notification heard would be published alone and any before it lost.
    func follow(_ stream: String, after head: UInt64) {
        published.withLock { state in
            if state.last[stream] == nil { state.last[stream] = head }
            guard state.last.count > state.pruneAt else { return }
            state.last = state.last.filter { hub.subscriberCount($0.key) > 0 }
            state.pruneAt = max(1_024, state.last.count * 2)
        }
    }

    /// How many streams the relay keeps a position of (tests read it).
    var trackedStreams: Int {
        published.withLock { $0.last.count }
    }

    /// Offers an event this node appended, with its write's span when traced.
    func offer(_ event: StreamEvent, trace: ServiceContext? = nil) {
        continuation.yield(.event(event, trace: trace))
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listen() }
                group.addTask {
                    for await input in self.inputs {
                        if Task.isCancelled { break }
                        await self.process(input)
                    }
                }
                group.addTask {
                    for await payload in self.outgoing {
                        if Task.isCancelled { break }
                        do {
                            try await self.storage.fetch("SELECT pg_notify(\(PostgresStorage.notifyChannel), \(payload))")
                        } catch {
                            self.logger.warning("a signal was not relayed to other nodes: \(error)")
                        }
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Holds a connection that LISTENs, reconnecting after failures; after each (re)connect
    /// it asks for a catch-up, since notifications sent while it was away are lost.
    private func listen() async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                let configuration = try storage.location.connectionConfiguration()
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                defer { Task { try? await connection.close() } }
                try await connection.listen(on: PostgresStorage.notifyChannel) { notifications in
                    attempt = 0
                    self.continuation.yield(.catchUp)
                    for try await notification in notifications {
                        if let input = Self.parse(notification.payload, ownOrigin: self.origin, tracer: self.hub.tracer) { self.continuation.yield(input) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                attempt += 1
                logger.warning("event listener lost PostgreSQL (attempt \(attempt)): \(error)")
            }
            try? await Task.sleep(for: .milliseconds(min(100 * (1 << min(attempt, 5)), 2_000)))
        }
    }

    /// What a notification's payload says: a whole event, or a hint naming a stream's
    /// offset; `nil` when it is neither. With a `tracer`, a `traceparent` it carries becomes
    /// the input's trace.
    ///
    /// Read in one pass by ``RawJSON``'s parser: every node reads every notification,
    /// its own appends' included, and with Foundation's `JSONDecoder` reading them took
    /// 11.7% of a node's CPU while it stored chat messages (`bench store` on PostgreSQL,
    /// `perf record`), 4.3% with this parser.
    static func parse(_ payload: String, ownOrigin: String = "", tracer: (any Tracer)? = nil) -> Input? {
        guard let value = try? RawJSON(json: payload) else { return nil }
        if let signal = value["signal"] {
            guard value["origin"]?.stringValue != ownOrigin, let parsed = try? signal.decode(as: StreamSignal.self) else { return nil }
            return .signal(parsed)
        }
        var trace: ServiceContext?
        if let tracer, let traceparent = value["traceparent"]?.stringValue {
            trace = TraceContext.context(traceparent: traceparent, tracer: tracer)
        }
        if value["epoch"] != nil, let event = try? StreamEvent(parsing: value) { return .event(event, trace: trace) }
        // A hint, or an event that does not read as one: its position, read again from the log.
        guard let stream = value["stream"]?.stringValue, let number = value["offset"]?.numberValue,
              let offset = UInt64(exactly: number), offset >= 1 else { return nil }
        return .hint(stream: stream, offset: offset, trace: trace)
    }

    private func process(_ input: Input) async {
        switch input {
        case .event(let event, let trace):
            hub.observe([event])
            await advance(event.stream, to: event.offset, event: event, trace: trace)
        case .hint(let stream, let offset, let trace):
            await advance(stream, to: offset, event: nil, trace: trace)
        case .signal(let signal):
            hub.signal(signal, metrics: metrics)
        case .catchUp:
            for stream in published.withLock({ Array($0.last.keys) }) {
                guard let info = try? await storage.streamInfo(stream) else { continue }
                await advance(stream, to: info.head, event: nil, trace: nil)
            }
        }
    }

    /// Publishes `stream`'s events up to `offset`, in order, reading from the log what was
    /// not handed over; `trace` is the span of the write that stored the event at `offset`.
    private func advance(_ stream: String, to offset: UInt64, event: StreamEvent?, trace: ServiceContext?) async {
        guard hub.subscriberCount(stream) > 0 else {
            // Counted again under the lock: a subscriber that registered meanwhile may have
            // set its starting point already (``follow(_:after:)`` comes after registering).
            published.withLock { state in
                if hub.subscriberCount(stream) == 0 { state.last.removeValue(forKey: stream) }
            }
            return
        }
        let last = published.withLock { $0.last[stream] }
        if let last, offset <= last { return }
        if let event, last == nil || offset == last! + 1 {
            deliver(event, trace: trace)
            return
        }
        var from = last ?? (offset - 1)
        while from < offset {
            let events: [StreamEvent]
            do {
                events = try await storage.readEvents(stream: stream, after: from, limit: 500)
            } catch {
                logger.error("cannot read \(stream) after \(from) to relay it: \(error)")
                return
            }
            for item in events where item.offset <= offset { deliver(item, trace: item.offset == offset ? trace : nil) }
            guard let newest = events.last, newest.offset > from else { break }
            from = newest.offset
        }
        // Events removed by retention cannot be relayed; subscribers resuming will be told.
        published.withLock { state in if (state.last[stream] ?? 0) < offset { state.last[stream] = offset } }
    }

    private func deliver(_ event: StreamEvent, trace: ServiceContext?) {
        published.withLock { $0.last[event.stream] = event.offset }
        hub.publish([event], traces: trace.map { [$0] } ?? [], metrics: metrics)
    }
}

/// A signal as a notification carries it between nodes.
private struct SignalNotice: Encodable {
    let signal: StreamSignal
    let origin: String
}
