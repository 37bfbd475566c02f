import GreenroomProtocol
import NIOCore

/// What the transport's own operations (`stream.subscribe`, `presence.join`…) may do to
/// the caller's connection, beyond what a capability may (``CallerSession``): follow
/// streams, hold presence, and ask the client to reconnect. Handlers get this, never the
/// connection.
protocol StreamSession: CallerSession {
    /// Queues a frame of JSON text (a reply) after what the connection has queued.
    func send(_ text: ByteBuffer)
    /// How many streams the session follows.
    var subscriptionCount: Int { get }
    /// Starts following `stream`, holding its live events until ``goLive(_:after:)``;
    /// false when it already does or the connection has closed.
    func beginSubscription(_ stream: String) -> Bool
    /// Queues a page of replayed events at the socket's pace; false once the connection closes.
    func sendReplay(_ frames: [ByteBuffer]) async -> Bool
    /// Ends a replay: the held live events after `last`, then live.
    func goLive(_ stream: String, after last: UInt64)
    /// Stops following `stream`; false when it did not.
    func unsubscribe(_ stream: String) -> Bool
    /// Notes presence on `stream` unless the session holds `limit` already; false then.
    func holdPresence(_ stream: String, limit: Int) -> Bool
    /// Forgets presence on `stream`; false when it held none.
    func releasePresence(_ stream: String) -> Bool
    /// The streams the session is present on.
    var presenceStreams: [String] { get }
    /// Asks the client to reconnect and resume (after a replay broke off past its reply).
    func requestResume(reason: String)
}

/// The session of a WebSocket client: its subscriptions, presence and roster notes, kept
/// on its connection.
struct ConnectionSession: StreamSession {
    let connection: ClientConnection

    func holdRoster(stream: String, key: String) { connection.addRoster(stream: stream, key: key) }
    func releaseRoster(stream: String, key: String) { connection.removeRoster(stream: stream, key: key) }
    var rosterEntries: [(stream: String, key: String)] { connection.rosterEntries }

    func endSubscription(_ stream: String) {
        connection.endSubscription(stream)
    }

    func send(_ text: ByteBuffer) { connection.send(text) }
    var subscriptionCount: Int { connection.subscribedStreams.count }
    func beginSubscription(_ stream: String) -> Bool { connection.beginSubscription(stream) }
    func sendReplay(_ frames: [ByteBuffer]) async -> Bool { await connection.sendReplay(frames) }
    func goLive(_ stream: String, after last: UInt64) { connection.goLive(stream, after: last) }
    func unsubscribe(_ stream: String) -> Bool { connection.endSubscription(stream) }
    func holdPresence(_ stream: String, limit: Int) -> Bool { connection.addPresence(stream, limit: limit) }
    func releasePresence(_ stream: String) -> Bool { connection.removePresence(stream) }
    var presenceStreams: [String] { connection.presenceStreams }
    func requestResume(reason: String) { connection.requestClose(.serverRestarting, reason: reason) }
}
