import Foundation
import GreenroomProtocol

/// A transaction whose appends go through `onAppend` (which calls the inner transaction's
/// `append` itself), and that forwards everything else: how the writer adds to appends
/// (queued webhook deliveries, injected faults) without a storage backend knowing.
package struct InterceptingTransaction: StorageTransaction {
    package let inner: any StorageTransaction
    package let onAppend: @Sendable (_ appends: [EventAppend], _ inner: any StorageTransaction) async throws -> [AppendOutcome]

    package init(inner: any StorageTransaction,
                 onAppend: @escaping @Sendable (_ appends: [EventAppend], _ inner: any StorageTransaction) async throws -> [AppendOutcome]) {
        self.inner = inner
        self.onAppend = onAppend
    }

    package func append(_ appends: [EventAppend]) async throws -> [AppendOutcome] { try await onAppend(appends, inner) }

    package func record(kind: String, scope: String, id: String) async throws -> Record? { try await inner.record(kind: kind, scope: scope, id: id) }
    package func records(_ query: RecordQuery) async throws -> [Record] { try await inner.records(query) }
    package func countRecords(_ query: RecordQuery) async throws -> Int { try await inner.countRecords(query) }
    package func put(_ record: Record) async throws { try await inner.put(record) }
    package func insert(_ record: Record) async throws -> Bool { try await inner.insert(record) }
    package func deleteRecord(kind: String, scope: String, id: String) async throws -> Bool { try await inner.deleteRecord(kind: kind, scope: scope, id: id) }
    package func deleteRecords(kind: String, scope: String) async throws -> Int { try await inner.deleteRecords(kind: kind, scope: scope) }
    package func lock(stream: String) async throws { try await inner.lock(stream: stream) }
    package func presenceEntry(stream: String, clientId: String) async throws -> PresenceEntry? { try await inner.presenceEntry(stream: stream, clientId: clientId) }
    package func presenceCount(stream: String, clientIdPrefix prefix: String) async throws -> Int { try await inner.presenceCount(stream: stream, clientIdPrefix: prefix) }
    package func presence(stream: String) async throws -> [PresenceEntry] { try await inner.presence(stream: stream) }
    package func putPresence(_ entry: PresenceEntry) async throws -> Bool { try await inner.putPresence(entry) }
    package func removePresence(stream: String, clientId: String) async throws -> PresenceEntry? { try await inner.removePresence(stream: stream, clientId: clientId) }
    package func presence(userId: String) async throws -> [PresenceEntry] { try await inner.presence(userId: userId) }
    package func user(id: String) async throws -> User? { try await inner.user(id: id) }
    package func insertUser(_ user: User) async throws -> Bool { try await inner.insertUser(user) }
    package func saveUser(_ user: User) async throws { try await inner.saveUser(user) }
    package func deleteUser(id: String) async throws -> Bool { try await inner.deleteUser(id: id) }
    package func retire(stream: String) async throws { try await inner.retire(stream: stream) }
    package func rewriteEvents(stream: String, containing needle: String,
                       _ rewrite: @escaping @Sendable (StreamEvent) throws -> RawJSON?) async throws -> Int {
        try await inner.rewriteEvents(stream: stream, containing: needle, rewrite)
    }
}
