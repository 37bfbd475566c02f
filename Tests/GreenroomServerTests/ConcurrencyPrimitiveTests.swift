import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The home-made waiting primitives let every waiter go, cancelled or not, and never let
/// two holders in at once.
@Suite("AsyncLock, CommandPipeline and CommandTurn leave no waiter behind", .wholeRun)
struct ConcurrencyPrimitiveTests {
    @Test("AsyncLock: 200 contenders, half of them cancelled while they wait: one holder at a time, first come first served, every one served, nothing left waiting")
    func asyncLock() async throws {
        let lock = AsyncLock()
        let holders = Locked(0)
        let overlaps = Locked(0)
        let order = Locked<[Int]>([])
        let tasks = Locked<[Task<Void, any Error>]>([])
        // The test holds the lock until every contender queued, so that the order is known.
        try await lock.withLock {
            for index in 0..<200 {
                let task = Task {
                    try await lock.withLock {
                        if holders.withLock({ $0 += 1; return $0 }) > 1 { overlaps.withLock { $0 += 1 } }
                        order.withLock { $0.append(index) }
                        await Task.yield()
                        holders.withLock { $0 -= 1 }
                    }
                }
                tasks.withLock { $0.append(task) }
                try await eventually("\(index + 1) wait for the lock", timeout: .seconds(10)) { lock.status.waiting == index + 1 }
            }
            for (index, task) in tasks.value.enumerated() where index % 2 == 1 { task.cancel() }
        }
        for task in tasks.value { try await task.value }
        #expect(overlaps.value == 0)
        #expect(order.value == Array(0..<200))
        #expect(lock.status == (false, 0))
    }

    @Test("CommandPipeline: waiters for idle are all let go when the last of many pipelined commands ends, and none stay")
    func pipeline() async throws {
        let pipeline = CommandPipeline()
        for _ in 0..<100 { pipeline.begin() }
        let released = Locked(0)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await pipeline.waitUntilIdle()
                    released.withLock { $0 += 1 }
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(released.value == 0, "a waiter was let go while commands ran")
            await withTaskGroup(of: Void.self) { ends in
                for _ in 0..<100 { ends.addTask { pipeline.end() } }
            }
            try await group.waitForAll()
        }
        #expect(released.value == 50)
        await pipeline.waitUntilIdle()  // idle now: returns at once
    }

    @Test("CommandTurn: a wait before the pass is let go by it, a wait after it returns at once, a second pass does nothing")
    func turn() async throws {
        let turn = CommandTurn()
        let waiting = Task { await turn.wait() }
        try await Task.sleep(for: .milliseconds(20))
        turn.pass()
        await waiting.value
        turn.pass()
        await turn.wait()
        // Passed from the writer's side, through the task-local it calls once a write is queued.
        let other = CommandTurn()
        EventLog.$whenQueued.withValue(EventLog.QueuedHook { other.pass() }) { EventLog.whenQueued?.action() }
        await other.wait()
    }
}
