import Foundation
import GreenroomProtocol
import Synchronization

/// Injected failures, for tests that show a change and its events are stored together or
/// not at all: an armed event type makes the next append of that type fail inside its
/// transaction, after whatever the transaction changed before it.
final class FaultPlan: Sendable {
    private let armed = Atomic<Bool>(false)
    private let types = Locked<Set<String>>([])

    /// Makes the next append of an event of `type` fail.
    func failNextAppend(ofType type: String) {
        types.withLock { _ = $0.insert(type) }
        armed.store(true, ordering: .releasing)
    }

    /// Whether any failure is armed (one atomic load on the write path otherwise).
    var isArmed: Bool { armed.load(ordering: .acquiring) }

    /// Throws when one of `appends` is of an armed type, disarming it.
    func check(_ appends: [EventAppend]) throws {
        let hit = types.withLock { types -> String? in
            guard let type = appends.lazy.map(\.type).first(where: types.contains) else { return nil }
            types.remove(type)
            return type
        }
        if let hit { throw GreenroomError(.internalError, "injected failure before appending \(hit)") }
    }
}

/// A transaction that fails the appends a ``FaultPlan`` names and forwards everything else.
struct FaultingTransaction: StorageTransaction {
    let inner: any StorageTransaction
    let plan: FaultPlan

    func append(_ appends: [EventAppend]) async throws -> [AppendOutcome] {
        try plan.check(appends)
        return try await inner.append(appends)
    }

    func record(kind: String, scope: String, id: String) async throws -> Record? { try await inner.record(kind: kind, scope: scope, id: id) }
    func records(_ query: RecordQuery) async throws -> [Record] { try await inner.records(query) }
    func countRecords(_ query: RecordQuery) async throws -> Int { try await inner.countRecords(query) }
    func put(_ record: Record) async throws { try await inner.put(record) }
    func insert(_ record: Record) async throws -> Bool { try await inner.insert(record) }
    func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool { try await inner.deleteRecord(kind: kind, scope: scope, id: id) }
    func deleteRecords(kind: String, scope: String) async throws -> Int { try await inner.deleteRecords(kind: kind, scope: scope) }
    func lock(stream: String) async throws { try await inner.lock(stream: stream) }
    func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? { try await inner.presenceEntry(stream: stream, clientId: clientId) }
    func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int { try await inner.presenceCount(stream: stream, clientIdPrefix: prefix) }
    func presence(stream: String) async throws -> [PresenceEntry] { try await inner.presence(stream: stream) }
    func putPresence(_ entry: PresenceEntry) async throws -> Bool { try await inner.putPresence(entry) }
    func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? { try await inner.removePresence(stream: stream, clientId: clientId) }
    func user(id: String) async throws -> User? { try await inner.user(id: id) }
    func insertUser(_ user: User) async throws -> Bool { try await inner.insertUser(user) }
    func saveUser(_ user: User) async throws { try await inner.saveUser(user) }
    func deleteUser(id: String) async throws -> Bool { try await inner.deleteUser(id: id) }
}
