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
            let holding = Locked(false)
            // A change that holds the writer until the test lets it go.
            let holder = Task {
                try await events.transact { _ in
                    holding.withLock { $0 = true }
                    while held.value { try await Task.sleep(for: .milliseconds(5)) }
                }
            }
            // Once its body runs, the writer has taken it into a batch of its own: what comes
            // next waits in the queue.
            try await eventually("the writer runs the holder") { holding.value }
            let refusedSoFar = Locked(0)
            let publishes = (0..<40).map { index in
                Task { () -> Result<StreamEvent, any Error> in
                    do {
                        return .success(try await server.server.publish(stream: "app:busy", data: ["n": .number(Double(index))]))
                    } catch {
                        refusedSoFar.withLock { $0 += 1 }
                        return .failure(error)
                    }
                }
            }
            // Each publish is queued or, past the queue's wait, refused; then the writer goes on.
            try await eventually("every publish is queued or refused", timeout: .seconds(60)) {
                refusedSoFar.value + events.queued == 40
            }
            held.withLock { $0 = false }
            var outcomes: [Result<StreamEvent, any Error>] = []
            for publish in publishes { outcomes.append(await publish.value) }
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
