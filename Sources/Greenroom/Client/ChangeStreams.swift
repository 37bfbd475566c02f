import Foundation
import GreenroomProtocol

/// The streams an object hands out of its changes (its `events`): each access makes a new
/// stream, several may be iterated at once, and each gets every change from then on, in
/// order. A stream no longer iterated (its iterator dropped) is forgotten; the rest end
/// with ``finish()``.
final class ChangeStreams<Element: Sendable>: Sendable {
    private let continuations = Locked<[UUID: AsyncStream<Element>.Continuation]>([:])
    private let bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy

    /// Streams that keep what their reader has not taken yet as `bufferingPolicy` says
    /// (every change, unless a signal that only the latest matters).
    init(bufferingPolicy: AsyncStream<Element>.Continuation.BufferingPolicy = .unbounded) {
        self.bufferingPolicy = bufferingPolicy
    }

    /// A new stream of every change from now on.
    func makeStream() -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: bufferingPolicy)
        let id = UUID()
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.continuations.withLock { _ = $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// Hands `change` to every stream.
    func yield(_ change: Element) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(change) }
    }

    /// Ends every stream.
    func finish() {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
