import ArgumentParser
import Foundation
import Histogram
import GreenroomProtocol
import Synchronization

/// `greenroom bench fanout`: N subscribers on one stream, one publisher at a fixed rate.
struct BenchFanout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "N subscribers on one stream; M events published at R per second; delivery, latency and server cost.")

    @Option(help: "Subscribers.") var subscribers: Int = 100
    @Option(help: "Events published per second.") var rate: Double = 100
    @Option(help: "Events to publish.") var messages: Int = 1000
    @Option(help: "Padding bytes in each event.") var payload: Int = 64
    @Option(help: "Publishers sending at once (the rate is shared).") var publishers: Int = 4
    @Option(help: "Events per request: above 1, each request is a batch to POST /v1/events (one commit).") var batch: Int = 1
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard subscribers > 0, messages > 0, rate > 0, payload >= 0, publishers > 0, (1...500).contains(batch) else {
            throw ValidationError("sizes must be positive, and a batch 1–500 events")
        }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        let stream = "app:fanout-\(UUID().uuidString.prefix(8))"
        let ready = Tally()
        let deadline = ContinuousClock.now + .seconds(Double(messages) / rate + 60)
        BenchReport.progress("connecting \(subscribers) subscribers to \(target.baseURL.absoluteString)")
        var tokens: [String] = []
        for index in 0..<subscribers { tokens.append(try await target.token("bench-sub-\(index)")) }
        let results = Task {
            try await withThrowingTaskGroup(of: BenchSubscriber.Result.self) { group in
                for token in tokens {
                    group.addTask {
                        try await BenchSubscriber(url: target.webSocketURL, token: token, stream: stream)
                            .run(expected: messages, ready: ready, deadline: deadline)
                    }
                }
                var all: [BenchSubscriber.Result] = []
                for try await result in group { all.append(result) }
                return all
            }
        }
        let connectDeadline = Date().addingTimeInterval(120)
        while ready.value < subscribers && Date() < connectDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        BenchReport.progress("\(ready.value) subscribed; publishing \(messages) events at \(rate)/s")
        let cpuBefore = target.cpuSeconds
        let pad = RawJSON.string(String(repeating: "x", count: payload))
        var connections: [BenchPublisher] = []
        for _ in 0..<publishers { connections.append(try await BenchPublisher.connect(to: target.baseURL, apiKey: target.apiKey)) }
        let path = "/v1/streams/\(stream)/events"
        let start = Date()
        let next = Tally()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for publisher in connections {
                group.addTask {
                    while true {
                        let last = next.add(batch)
                        let index = last - batch + 1
                        guard index <= messages else { return }
                        let count = min(batch, messages - index + 1)
                        let due = start.addingTimeInterval(Double(index - 1) / rate)
                        let wait = due.timeIntervalSinceNow
                        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
                        let status = try await publisher.post(batch == 1 ? path : "/v1/events") {
                            // Stamped as the request is written.
                            let data: RawJSON = ["t": .number(Date().timeIntervalSince1970), "pad": pad]
                            let body: RawJSON = batch == 1 ? ["type": "bench", "data": data]
                                : ["events": .array(Array(repeating: ["stream": .string(stream), "type": "bench", "data": data], count: count))]
                            return (try? body.jsonBytes()) ?? []
                        }
                        if status != 201 { BenchReport.progress("publish \(index) answered \(status)") }
                        if (index - 1) / max(messages / 10, 1) != (index + count - 1) / max(messages / 10, 1) { BenchReport.progress("published \(index + count - 1)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        for publisher in connections { await publisher.close() }
        let publishSeconds = Date().timeIntervalSince(start)
        let all = try await results.value
        let elapsed = Date().timeIntervalSince(start)
        let cpuAfter = target.cpuSeconds
        var delivered = 0, duplicates = 0, outOfOrder = 0
        // Latencies in microseconds, up to two minutes, to three significant digits.
        var latencies = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
        for result in all {
            delivered += result.received
            duplicates += result.duplicates
            outOfOrder += result.outOfOrder
            for milliseconds in result.latencies {
                latencies.record(UInt64(min(max(milliseconds * 1000, 0), 120_000_000)))
            }
        }
        let expected = subscribers * messages
        var figures: [String: RawJSON] = ["bench": "fanout"]
        figures["subscribers"] = .number(Double(subscribers))
        figures["messages"] = .number(Double(messages))
        figures["rate"] = .number(rate)
        figures["payloadBytes"] = .number(Double(payload))
        figures["expected"] = .number(Double(expected))
        figures["delivered"] = .number(Double(delivered))
        figures["lost"] = .number(Double(expected - delivered))
        figures["duplicates"] = .number(Double(duplicates))
        figures["outOfOrder"] = .number(Double(outOfOrder))
        figures["publishSeconds"] = BenchReport.rounded(publishSeconds)
        figures["seconds"] = BenchReport.rounded(elapsed)
        figures["deliveriesPerSecond"] = BenchReport.rounded(Double(delivered) / elapsed, 0)
        figures["latencyP50Ms"] = BenchReport.rounded(Double(latencies.valueAtPercentile(50)) / 1000)
        figures["latencyP99Ms"] = BenchReport.rounded(Double(latencies.valueAtPercentile(99)) / 1000)
        figures["latencyMaxMs"] = BenchReport.rounded(Double(latencies.max) / 1000)
        if let before = cpuBefore, let after = cpuAfter, delivered > 0 {
            figures["serverCpuMicrosecondsPerDelivery"] = BenchReport.rounded((after - before) / Double(delivered) * 1_000_000, 2)
            figures["serverCpuSeconds"] = BenchReport.rounded(after - before)
        }
        if let peak = target.memory(peak: true) { figures["serverPeakMemoryMB"] = BenchReport.rounded(Double(peak) / 1_048_576, 1) }
        try BenchReport.figures(figures)
        if delivered < subscribers * messages { throw ExitCode(2) }
    }
}
