import Foundation
import GreenroomProtocol

extension BenchRoom {
    /// NATS, measured as the room was: as many subscribers as participants on one subject
    /// over its WebSocket listener, and the host's events as `PUB`s over TCP at the same
    /// rate, each stamped as it is written and padded to the size of the frames Greenroom's
    /// participants got (`frameBytes`), so both carry the same bytes to each subscriber.
    func measureNATS(_ nats: NATSPeer, frameBytes: Int) async throws -> [String: RawJSON] {
        let (subscribers, events, rate) = (participants, events, rate)
        BenchReport.progress("the peer: \(subscribers) subscribers to nats-server at \(nats.webSocketURL)")
        let ready = Tally(), failed = Tally()
        let deadline = ContinuousClock.now + .seconds(Double(subscribers) / 50 + Double(events) / rate + 120)
        let results = Task {
            try await withThrowingTaskGroup(of: BenchSubscriber.Result.self) { group in
                for _ in 0..<subscribers {
                    group.addTask {
                        do {
                            return try await nats.subscribe(expected: events, ready: ready, deadline: deadline)
                        } catch {
                            failed.add()
                            return BenchSubscriber.Result()
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        while ready.value + failed.value < subscribers && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        BenchReport.progress("the peer: \(ready.value) subscribed, \(failed.value) failed; publishing \(events) at \(rate)/s")
        let publisher = try await NATSPublisher.connect(port: nats.port)
        // The message without its padding is ~40 bytes: `{"offset":N,"t":T,"pad":""}`.
        let pad = String(repeating: "x", count: max(0, frameBytes - 40))
        let cpuBefore = nats.cpuSeconds
        let sendStart = Date()
        for index in 1...events {
            let wait = sendStart.addingTimeInterval(Double(index - 1) / rate).timeIntervalSinceNow
            if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
            try await publisher.publish {
                Array(#"{"offset":\#(index),"t":\#(Date().timeIntervalSince1970),"pad":"\#(pad)"}"#.utf8)
            }
        }
        let sendSeconds = Date().timeIntervalSince(sendStart)
        let all = try await results.value
        let cpuAfter = nats.cpuSeconds
        await publisher.close()
        var latencies = Latencies()
        var delivered = 0
        for result in all {
            delivered += result.received
            for milliseconds in result.latencies { latencies.record(milliseconds: milliseconds) }
        }
        let expected = ready.value * events
        var figures: [String: RawJSON] = [
            "server": "nats-server", "subscribers": .number(Double(ready.value)), "failed": .number(Double(failed.value)),
            "messageBytes": .number(Double(40 + pad.utf8.count)), "sendSeconds": BenchReport.rounded(sendSeconds),
            "expected": .number(Double(expected)), "delivered": .number(Double(delivered)), "lost": .number(Double(expected - delivered)),
        ].merging(latencies.figures()) { _, new in new }
        if let before = cpuBefore, let after = cpuAfter, delivered > 0 {
            figures["serverCpuMicrosecondsPerDelivery"] = BenchReport.rounded((after - before) / Double(delivered) * 1_000_000, 2)
        }
        if let peak = nats.peakMemory { figures["serverPeakMemoryMB"] = BenchReport.rounded(Double(peak) / 1_048_576, 1) }
        return figures
    }
}
