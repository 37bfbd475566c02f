import Foundation
import GreenroomProtocol

extension GreenroomClient {
    /// Creates a live event; the caller may then enter it as a host if listed in `userIdsForHost`
    /// (the creator is the only host when the list is empty).
    public func createLiveEvent(config: LiveEvent.CreateParams) async throws -> LiveEvent {
        LiveEvent(try await send(LiveEventOperation.create, args: config.args), client: self)
    }

    /// The completion-handler form of ``createLiveEvent(config:)``: `completionHandler` runs
    /// on the main actor with the event or the error.
    public func createLiveEvent(config: LiveEvent.CreateParams, completionHandler: (@MainActor @Sendable (LiveEvent?, (any Error)?) -> Void)?) {
        Task {
            do {
                let event = try await createLiveEvent(config: config)
                await MainActor.run { completionHandler?(event, nil) }
            } catch {
                await MainActor.run { completionHandler?(nil, error) }
            }
        }
    }

    /// Reads a live event. - Throws: `liveEventIdNotFound`.
    public func getLiveEvent(id: String) async throws -> LiveEvent {
        LiveEvent(try await send(LiveEventOperation.get, args: LiveEventRef(liveEventId: id)), client: self)
    }

    /// A query over live events, newest first: `try await query.next()` until `hasNext` is false.
    public func createLiveEventListQuery(states: [LiveEventState]? = nil, createdBy: String? = nil, ids: [String]? = nil, limit: Int = 20) -> LiveEventListQuery {
        LiveEventListQuery(client: self, args: LiveEventListArgs(states: states, createdBy: createdBy, ids: ids, limit: limit))
    }
}

/// Pages through live events.
public final class LiveEventListQuery: Sendable {
    private struct State {
        var cursor: String?
        var hasNext = true
    }

    private let client: GreenroomClient
    private let args: LiveEventListArgs
    private let state = Locked(State())

    init(client: GreenroomClient, args: LiveEventListArgs) {
        self.client = client
        self.args = args
    }

    /// Whether another page may follow.
    public var hasNext: Bool { state.withLock { $0.hasNext } }

    /// The next page (empty after the last one). With a local store, the first page is
    /// kept there and answers at once while the client is not connected.
    public func next() async throws -> [LiveEvent] {
        var args = self.args
        let (cursor, more) = state.withLock { ($0.cursor, $0.hasNext) }
        guard more else { return [] }
        args.cursor = cursor
        let key = "live.list?" + String(decoding: try WireCoding.encode(args), as: UTF8.self)
        let page: Page<LiveEventData> = try await client.firstPage(key, cursor: cursor) { [args] in
            try await client.send(LiveEventOperation.list, args: args)
        }
        state.withLock { state in
            state.cursor = page.next
            state.hasNext = page.next != nil
        }
        return page.items.map { LiveEvent($0, client: client) }
    }
}
