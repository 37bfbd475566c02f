@testable import GreenroomServer
import NIOCore
import Testing

/// How long a loop that is behind its events' rate waits between two chunks of its fan-out.
@Suite("The fan-out's wait between chunks while behind")
struct LoopDrainerTests {
    @Test("a few hundred connections waiting get the longest wait; thousands a shorter one, so a pass grows by about the same; a few dozen at most 10 µs each; never under the wait when caught up")
    func behindDelay() {
        let longest = TimeAmount.microseconds(LoopDrainer.longestBehindDelay)
        let perConnection = LoopDrainer.behindWaitPerConnection
        #expect(LoopDrainer.behindDelay(waiting: 500) == longest)
        #expect(LoopDrainer.behindDelay(waiting: 300) == longest)
        // A few waiting: the wait follows their number, never under the caught-up one.
        #expect(LoopDrainer.behindDelay(waiting: 50) == .microseconds(50 * perConnection))
        for waiting in [-1, 0, 1, 2, 20, 50, 99] {
            let delay = LoopDrainer.behindDelay(waiting: waiting)
            #expect(delay >= LoopDrainer.yieldDelay)
            #expect(delay <= .microseconds(max(1, Int64(waiting)) * perConnection))
        }
        // 5,000 connections are 157 chunks: 16,000 µs over them is 101 µs a chunk.
        #expect(LoopDrainer.behindDelay(waiting: 5_000) == .microseconds(101))
        for waiting in [2_000, 5_000, 20_000] {
            let chunks = Int64((waiting + LoopDrainer.chunk - 1) / LoopDrainer.chunk)
            let pass = LoopDrainer.behindDelay(waiting: waiting).nanoseconds * chunks
            #expect(pass <= LoopDrainer.behindPass * 1_000 && pass > LoopDrainer.behindPass * 1_000 * 9 / 10)
        }
        #expect(LoopDrainer.behindDelay(waiting: 10_000_000) == LoopDrainer.yieldDelay)
        #expect(LoopDrainer.behindDelay(waiting: Int.max) == LoopDrainer.yieldDelay)
    }
}
