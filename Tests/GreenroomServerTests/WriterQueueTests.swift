import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The node's writer has a bounded queue that pushes back.
@Suite("The writer's queue", .wholeRun)
struct WriterQueueTests {
    @Test("while the writer is held, changes past its queue wait and then are refused with overloaded; those queued are stored once it goes on")
    func fullQueuePushesBack() async throws {
        try await withServer({ $0.writeQueueLimit = 8; $0.writeQueueWait = 0.3 }) { server in
            let events = server.server.core.events
            let held = Locked(true)
            // A change that holds the writer until the test lets it go.
            let holder = Task {
                try await events.transact { _ in
                    while held.value { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            let outcomes = await withTaskGroup(of: Result<StreamEvent, any Error>.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        do {
                            return .success(try await server.server.publish(stream: "app:busy", data: ["n": .number(Double(index))]))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                // Past the refusals' wait, the writer goes on.
                try? await Task.sleep(for: .milliseconds(1_500))
                held.withLock { $0 = false }
                return await group.reduce(into: []) { $0.append($1) }
            }
            try await holder.value
            let stored = outcomes.compactMap { try? $0.get() }
            let refused = outcomes.compactMap { outcome -> GreenroomError? in
                if case .failure(let error) = outcome { return error as? GreenroomError }
                return nil
            }
            #expect(stored.count >= 8 && stored.count < 40, "\(stored.count) stored")
            #expect(refused.count == 40 - stored.count && refused.allSatisfy { $0.is(.overloaded) }, "\(refused.prefix(2))")
            let log = try await server.server.core.storage.readEvents(stream: "app:busy", after: 0, limit: 100)
            #expect(log.count == stored.count)
            #expect(try await server.rest("POST", "/v1/streams/app:busy/events", body: ["data": ["after": true]]).0 == 201)
        }
    }
}
