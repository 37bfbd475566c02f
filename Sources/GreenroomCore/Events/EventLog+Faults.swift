import Foundation
import GreenroomProtocol
import GreenroomStorage
import Synchronization

/// Injected failures, for tests that show a change and its events are stored together or
/// not at all: an armed event type makes the next append of that type fail inside its
/// transaction, after whatever the transaction changed before it.
package final class FaultPlan: Sendable {
    private let armed = Atomic<Bool>(false)
    private let types = Locked<Set<String>>([])

    /// Makes the next append of an event of `type` fail.
    package func failNextAppend(ofType type: String) {
        types.withLock { _ = $0.insert(type) }
        armed.store(true, ordering: .releasing)
    }

    /// Whether any failure is armed (one atomic load on the write path otherwise).
    package var isArmed: Bool { armed.load(ordering: .acquiring) }

    /// Throws when one of `appends` is of an armed type, disarming it.
    package func check(_ appends: [EventAppend]) throws {
        let hit = types.withLock { types -> String? in
            guard let type = appends.lazy.map(\.type).first(where: types.contains) else { return nil }
            types.remove(type)
            return type
        }
        if let hit { throw GreenroomError(.internalError, "injected failure before appending \(hit)") }
    }
}

extension FaultPlan {
    /// `transaction`, failing the appends this plan names.
    package func wrap(_ transaction: any StorageTransaction) -> any StorageTransaction {
        InterceptingTransaction(inner: transaction) { appends, inner in
            try self.check(appends)
            return try await inner.append(appends)
        }
    }
}
