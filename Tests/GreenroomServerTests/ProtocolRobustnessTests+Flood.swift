import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension ProtocolRobustnessTests {
    /// The most commands one connection can make the server hold: the queue's 16, and what
    /// one read of its socket under way hands on (4 reads of 64 KB) in frames of `bytes`.
    static func mostQueued(framesOf bytes: Int) -> Int { 16 + 4 * 65_536 / bytes }

    @Test("a client that sends far faster than its commands run, quick commands first and then sends past its budget, makes the server hold no more than a read's worth of its commands; they are let go when it leaves")
    func floodHoldsBoundedCommands() async throws {
        try await withServer({
            $0.rateLimits.writes = Rate(perSecond: 1, burst: 1)
            $0.rateLimits.reads = nil
        }) { server in
            let owner = try await server.client("flo")
            _ = try await owner.createChannel(id: "flood", name: "Flood", isPublic: true)
            let socket = try await connectRaw(server, "flo")
            // Quick commands run about as fast as they come, so reads pause and resume
            // many times; then sends refused for their rate run two a second.
            let quick = Self.frames(#"{"id":1,"op":"user.me"}"#, count: 1_000)
            let slow = Self.frames(#"{"id":2,"op":"message.send","args":{"channelId":"flood","text":"again and again"}}"#, count: 1_000)
            let flooding = Thread {
                do {
                    for _ in 0..<5 { try socket.write(quick) }
                    for _ in 0..<120 { try socket.write(slow) }
                } catch {}
            }
            flooding.start()
            // Replies are read (a client that does not read is a slow consumer, tested
            // elsewhere) and thrown away.
            let reading = Task {
                while !Task.isCancelled { _ = try? await socket.readAnswer(timeout: .milliseconds(50)) }
            }
            var most = 0
            for _ in 0..<50 {
                most = max(most, server.server.metrics.queuedCommands)
                try await Task.sleep(for: .milliseconds(100))
            }
            reading.cancel()
            socket.cut()
            let bound = Self.mostQueued(framesOf: Self.frames(#"{"id":1,"op":"user.me"}"#, count: 1).count)
            #expect(most > 0, "nothing was ever queued")
            #expect(most <= bound, "the server held \(most) commands of one connection; at most \(bound) expected")
            try await eventually("the commands of a closed connection are let go") { server.server.metrics.queuedCommands == 0 }
        }
    }

    /// `count` masked text frames of `text`, back to back.
    static func frames(_ text: String, count: Int) -> [UInt8] {
        Array([[UInt8]](repeating: RawSocket.frame(opcode: 1, payload: Array(text.utf8)), count: count).joined())
    }
}
