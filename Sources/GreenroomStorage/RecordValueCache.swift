import GreenroomProtocol

/// Decoded records by their JSON text, so that a record read again unchanged (a channel's
/// member checked on every message) or read back right after it was written (a channel
/// whose message counter the previous message advanced) is not decoded again.
///
/// Decoding is a function of the text and the type, so a hit returns what decoding would;
/// a value cached when it was encoded is the one that text came from (dates and numbers
/// differ at most beyond what the wire carries: dates past the millisecond). Two
/// generations bound it: when the newer one is full the older is dropped, and a hit in the
/// older one moves forward, so what is used often stays.
package final class RecordValueCache: Sendable {
    /// The cache every record type shares.
    package static let shared = RecordValueCache()

    /// Texts longer than this are not kept (long messages would crowd out the small,
    /// often-read records the cache is for).
    package static let maxTextBytes = 4096
    /// Entries per generation.
    package static let generationSize = 1024

    package init() {}

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let text: String
    }

    private struct State {
        var newer: [Key: any Sendable] = [:]
        var older: [Key: any Sendable] = [:]
    }

    private let state = Locked(State())

    /// The value decoded earlier from `text` as `type`, if kept.
    package func value<R: Sendable>(_ type: R.Type, text: String) -> R? {
        guard text.utf8.count <= Self.maxTextBytes else { return nil }
        let key = Key(type: ObjectIdentifier(type), text: text)
        return state.withLock { state -> R? in
            if let value = state.newer[key] { return value as? R }
            guard let value = state.older.removeValue(forKey: key) else { return nil }
            Self.insert(value, for: key, into: &state)
            return value as? R
        }
    }

    /// Keeps `value` as what `text` decodes to as its type.
    package func remember<R: Sendable>(_ value: R, text: String) {
        guard text.utf8.count <= Self.maxTextBytes else { return }
        let key = Key(type: ObjectIdentifier(R.self), text: text)
        state.withLock { Self.insert(value, for: key, into: &$0) }
    }

    private static func insert(_ value: any Sendable, for key: Key, into state: inout State) {
        if state.newer.count >= generationSize {
            state.older = state.newer
            state.newer = [:]
            state.newer.reserveCapacity(generationSize)
        }
        state.newer[key] = value
    }
}
