import Foundation
@testable import GreenroomServer
import Testing

/// The cache of decoded records: keyed by type and exact text, bounded by two generations.
@Suite("Record value cache")
struct RecordValueCacheTests {
    struct Small: Sendable, Equatable { var n: Int }
    struct Other: Sendable, Equatable { var n: Int }

    @Test("a value is found by its type and exact text only; long texts are not kept")
    func keys() {
        let cache = RecordValueCache()
        cache.remember(Small(n: 1), text: #"{"n":1}"#)
        #expect(cache.value(Small.self, text: #"{"n":1}"#) == Small(n: 1))
        #expect(cache.value(Other.self, text: #"{"n":1}"#) == nil)
        #expect(cache.value(Small.self, text: #"{"n": 1}"#) == nil)
        let long = String(repeating: "x", count: RecordValueCache.maxTextBytes + 1)
        cache.remember(Small(n: 2), text: long)
        #expect(cache.value(Small.self, text: long) == nil)
    }

    @Test("two generations: the oldest entries go, an entry used in the older generation stays")
    func generations() {
        let cache = RecordValueCache()
        let size = RecordValueCache.generationSize
        for n in 0..<size { cache.remember(Small(n: n), text: "t\(n)") }
        // A second generation starts; the first is now the older one.
        for n in size..<(2 * size) { cache.remember(Small(n: n), text: "t\(n)") }
        #expect(cache.value(Small.self, text: "t0") == Small(n: 0))  // moved to the newer generation
        for n in (2 * size)..<(3 * size) { cache.remember(Small(n: n), text: "t\(n)") }
        #expect(cache.value(Small.self, text: "t1") == nil)
        #expect(cache.value(Small.self, text: "t\(3 * size - 1)") == Small(n: 3 * size - 1))
    }

    struct Counter: StoredRecord, Equatable {
        static let recordKind = "test-counter"
        var id: String
        var count: Int
        var at: Date
        var recordId: String { id }
    }

    @Test("a record read back after each change decodes to what was stored, as a fresh decode of its text does")
    func records() async throws {
        try await withStorage(.sqlite) { storage, _ in
            let at = Date(timeIntervalSince1970: 1_800_000_000.123)
            for count in 1...3 {
                let stored = Counter(id: "c", count: count, at: at)
                let loaded = try await storage.transact(retentionCount: 100) { transaction -> Counter? in
                    try await transaction.save(stored)
                    return try await transaction.load(Counter.self, id: "c")
                }
                #expect(loaded == stored)
                #expect(try await storage.load(Counter.self, id: "c") == stored)
                let text = try #require(try await storage.record(kind: Counter.recordKind, scope: "", id: "c")?.data)
                #expect(try WireCoding.decode(Counter.self, from: Data(text.utf8)) == stored)
            }
        }
    }
}
