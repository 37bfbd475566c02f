@testable import GreenroomServer
import NIOCore
import Testing

/// How long a loop that is behind its events' rate waits between two chunks of its fan-out.
@Suite("The fan-out's wait between chunks while behind")
struct LoopDrainerTests {
    @Test("a few hundred connections waiting get the longest wait; thousands a shorter one, so a pass grows by about the same; never under the wait when caught up")
    func behindDelay() {
        let longest = TimeAmount.microseconds(LoopDrainer.longestBehindDelay)
        #expect(LoopDrainer.behindDelay(waiting: 0) == longest)
        #expect(LoopDrainer.behindDelay(waiting: 1) == longest)
        #expect(LoopDrainer.behindDelay(waiting: 500) == longest)
        // 5,000 connections are 157 chunks: 8,000 µs over them is 50 µs a chunk.
        #expect(LoopDrainer.behindDelay(waiting: 5_000) == .microseconds(50))
        for waiting in [2_000, 5_000, 20_000] {
            let chunks = Int64((waiting + LoopDrainer.chunk - 1) / LoopDrainer.chunk)
            let pass = LoopDrainer.behindDelay(waiting: waiting).nanoseconds * chunks
            #expect(pass <= LoopDrainer.behindPass * 1_000 && pass > LoopDrainer.behindPass * 1_000 * 9 / 10)
        }
        #expect(LoopDrainer.behindDelay(waiting: 10_000_000) == LoopDrainer.yieldDelay)
        #expect(LoopDrainer.behindDelay(waiting: Int.max) == LoopDrainer.yieldDelay)
    }
}
