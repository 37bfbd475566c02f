import ArgumentParser
import Foundation
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
    @Option(help: "How events are published: rest (the app's backend, POST /v1/streams/…/events) or ws (clients granted publish:app:NAME, stream.publish over their WebSocket).") var via: String = "rest"
    @Option(help: "Server processes on one PostgreSQL (--database): the publishers on the first, the subscribers split between all.") var nodes: Int = 1
    @OptionGroup var options: BenchOptions

    @Option(help: "Measure a peer the same way in the same run, after Greenroom: nats (nats-server's WebSocket listener; subscribers as here, PUBs over TCP).") var peer: String?
    @Option(name: .customLong("nats-server"), help: "The nats-server for --peer nats (else on PATH).") var natsServer: String?

    func run() async throws {
        guard subscribers > 0, messages > 0, rate > 0, payload >= 0, publishers > 0, (1...500).contains(batch) else {
            throw ValidationError("sizes must be positive, and a batch 1–500 events")
        }
        guard via == "rest" || (via == "ws" && batch == 1) else {
            throw ValidationError("--via takes rest or ws (ws publishes one event per command, without --batch)")
        }
        let natsProgram = try NATSPeer.program(peer: peer, natsServer: natsServer)
        guard nodes == 1 || (nodes > 1 && options.database != nil && options.server == nil) else {
            throw ValidationError("--nodes above 1 needs --database (the PostgreSQL the nodes share) and no --server")
        }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        var others: [BenchTarget] = []
        defer { for node in others { node.stop() } }
        for _ in 1..<nodes {
            // The nodes share the data directory, so the app secret and API key too.
            var shared = options
            shared.dataDir = target.dataDirectory
            others.append(try await BenchTarget.start(shared))
        }
        var figures = try await measureGreenroom([target] + others)
        var lost = figures["lost"]?.numberValue ?? 0
        if let natsProgram {
            let nats = try await NATSPeer.start(natsProgram)
            defer { nats.stop() }
            let peerFigures = try await measureNATS(nats)
            lost += NATSPeer.report(peerFigures, in: &figures)
        }
        try BenchReport.figures(figures)
        if lost > 0 { throw ExitCode(2) }
    }

    /// Greenroom: subscribers on an app stream (split between the nodes), events published
    /// to the first node over REST or a WebSocket.
    private func measureGreenroom(_ nodes: [BenchTarget]) async throws -> [String: RawJSON] {
        let target = nodes[0]
        let stream = "app:fanout-\(UUID().uuidString.prefix(8))"
        BenchReport.progress("connecting \(subscribers) subscribers to \(nodes.map(\.baseURL.absoluteString).joined(separator: " and "))")
        var issued: [String] = []
        for index in 0..<subscribers { issued.append(try await target.token("bench-sub-\(index)")) }
        let tokens = issued
        let pad = RawJSON.string(String(repeating: "x", count: payload))
        var connections: [BenchPublisher] = []
        var sockets: [BenchSocketPublisher] = []
        let path = "/v1/streams/\(stream)/events"
        let (batch, messages, via) = (batch, messages, via)
        var figures = try await measure(
            subscribe: { index, ready, deadline in
                try await BenchSubscriber(url: nodes[index % nodes.count].webSocketURL, token: tokens[index], stream: stream)
                    .run(expected: messages, ready: ready, deadline: deadline)
            },
            connect: {
                if via == "ws" {
                    for index in 0..<publishers {
                        let token = try await target.token("bench-pub-\(index)", grants: ["publish:\(stream)", BenchTarget.unmetered])
                        sockets.append(try await BenchSocketPublisher.connect(url: target.webSocketURL, token: token))
                    }
                    return sockets.map { publisher in
                        { @Sendable index, _ in
                            let stored = try await publisher.publish {
                                // Stamped as the command is written.
                                let data: RawJSON = ["t": .number(Date().timeIntervalSince1970), "pad": pad]
                                return (try? RawJSON.dictionary(["stream": .string(stream), "type": "bench", "data": data]).jsonBytes()) ?? []
                            }
                            if !stored { BenchReport.progress("publish \(index) was refused") }
                        }
                    }
                }
                for _ in 0..<publishers { connections.append(try await BenchPublisher.connect(to: target.baseURL, apiKey: target.apiKey)) }
                return connections.map { publisher in
                    { @Sendable index, count in
                        let status = try await publisher.post(batch == 1 ? path : "/v1/events") {
                            // Stamped as the request is written.
                            let data: RawJSON = ["t": .number(Date().timeIntervalSince1970), "pad": pad]
                            let body: RawJSON = batch == 1 ? ["type": "bench", "data": data]
                                : ["events": .array(Array(repeating: ["stream": .string(stream), "type": "bench", "data": data], count: count))]
                            return (try? body.jsonBytes()) ?? []
                        }
                        if status != 201 { BenchReport.progress("publish \(index) answered \(status)") }
                    }
                }
            },
            close: {
                for publisher in connections { await publisher.close() }
                for publisher in sockets { await publisher.close() }
            },
            cpuSeconds: {
                let seconds = nodes.compactMap(\.cpuSeconds)
                return seconds.count == nodes.count ? seconds.reduce(0, +) : nil
            },
            nodes: nodes.count)
        figures["via"] = .string(via)
        let peaks = nodes.compactMap { $0.memory(peak: true) }
        if let peak = peaks.max() { figures["serverPeakMemoryMB"] = BenchReport.rounded(Double(peak) / 1_048_576, 1) }
        return figures
    }

    /// NATS: the same subscribers over its WebSocket listener, `PUB`s over TCP (one event
    /// each, whatever `--batch`).
    private func measureNATS(_ nats: NATSPeer) async throws -> [String: RawJSON] {
        BenchReport.progress("the peer: connecting \(subscribers) subscribers to nats-server at \(nats.webSocketURL)")
        let pad = String(repeating: "x", count: payload)
        var connections: [NATSPublisher] = []
        let messages = messages
        var figures = try await measure(
            subscribe: { _, ready, deadline in try await nats.subscribe(expected: messages, ready: ready, deadline: deadline) },
            connect: {
                for _ in 0..<publishers { connections.append(try await NATSPublisher.connect(port: nats.port)) }
                return connections.map { publisher in
                    { @Sendable index, count in
                        for offset in index..<(index + count) {
                            try await publisher.publish {
                                Array(#"{"offset":\#(offset),"t":\#(Date().timeIntervalSince1970),"pad":"\#(pad)"}"#.utf8)
                            }
                        }
                    }
                }
            },
            close: { for publisher in connections { await publisher.close() } },
            cpuSeconds: { nats.cpuSeconds },
            batch: 1)
        figures["server"] = "nats-server"
        if let peak = nats.peakMemory { figures["serverPeakMemoryMB"] = BenchReport.rounded(Double(peak) / 1_048_576, 1) }
        return figures
    }

    /// Connects the subscribers, publishes `messages` events at `rate` from the publishers
    /// (each sends `index, count`: the events from `index` on, one request), waits for the
    /// subscribers; returns the figures.
    private func measure(
        subscribe: @escaping @Sendable (_ index: Int, _ ready: Tally, _ deadline: ContinuousClock.Instant) async throws -> BenchSubscriber.Result,
        connect: () async throws -> [@Sendable (_ index: Int, _ count: Int) async throws -> Void],
        close: () async -> Void,
        cpuSeconds: () -> Double?,
        batch: Int? = nil,
        nodes: Int = 1
    ) async throws -> [String: RawJSON] {
        let (subscribers, messages, rate, batch) = (subscribers, messages, rate, batch ?? self.batch)
        let ready = Tally()
        let deadline = ContinuousClock.now + .seconds(Double(messages) / rate + 60)
        let results = Task {
            try await withThrowingTaskGroup(of: (Int, BenchSubscriber.Result).self) { group in
                for index in 0..<subscribers {
                    group.addTask { (index, try await subscribe(index, ready, deadline)) }
                }
                var all: [(index: Int, result: BenchSubscriber.Result)] = []
                for try await result in group { all.append(result) }
                return all
            }
        }
        let connectDeadline = Date().addingTimeInterval(120)
        while ready.value < subscribers && Date() < connectDeadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        BenchReport.progress("\(ready.value) subscribed; publishing \(messages) events at \(rate)/s")
        let cpuBefore = cpuSeconds()
        let senders = try await connect()
        let start = Date()
        let next = Tally()
        // How long each publish call took: the request's answer (REST), the command's reply
        // (WebSocket), the bytes written (NATS, which does not acknowledge a PUB).
        let calls = Locked(Latencies())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for send in senders {
                group.addTask {
                    while true {
                        let last = next.add(batch)
                        let index = last - batch + 1
                        guard index <= messages else { return }
                        let count = min(batch, messages - index + 1)
                        let due = start.addingTimeInterval(Double(index - 1) / rate)
                        let wait = due.timeIntervalSinceNow
                        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
                        let sent = ContinuousClock.now
                        try await send(index, count)
                        let took = ContinuousClock.now - sent
                        calls.withLock { $0.record(milliseconds: Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15) }
                        if (index - 1) / max(messages / 10, 1) != (index + count - 1) / max(messages / 10, 1) { BenchReport.progress("published \(index + count - 1)") }
                    }
                }
            }
            try await group.waitForAll()
        }
        await close()
        let publishSeconds = Date().timeIntervalSince(start)
        let all = try await results.value
        let elapsed = Date().timeIntervalSince(start)
        let cpuAfter = cpuSeconds()
        var delivered = 0, duplicates = 0, outOfOrder = 0
        // Latencies of all subscribers, and of each node's (subscriber i is on node i % nodes).
        var latencies = Latencies()
        var perNode = Array(repeating: (delivered: 0, latencies: Latencies()), count: nodes)
        for (index, result) in all {
            delivered += result.received
            duplicates += result.duplicates
            outOfOrder += result.outOfOrder
            perNode[index % nodes].delivered += result.received
            for milliseconds in result.latencies {
                latencies.record(milliseconds: milliseconds)
                perNode[index % nodes].latencies.record(milliseconds: milliseconds)
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
        figures.merge(latencies.figures()) { _, new in new }
        calls.withLock { calls in
            figures["publishCallP50Ms"] = BenchReport.rounded(calls.milliseconds(at: 50))
            figures["publishCallP99Ms"] = BenchReport.rounded(calls.milliseconds(at: 99))
        }
        if nodes > 1 {
            figures["nodes"] = .array(perNode.enumerated().map { node, figures in
                RawJSON.dictionary(figures.latencies.figures(max: false).merging([
                    "node": .number(Double(node + 1)), "subscribers": .number(Double((0..<subscribers).count { $0 % nodes == node })),
                    "delivered": .number(Double(figures.delivered)),
                ]) { _, new in new })
            })
        }
        // Kept up: published on time (within 10% of the schedule, or half a second) and the
        // 99th percentile under a second.
        let due = Double(messages) / rate
        figures["keptUp"] = .bool(publishSeconds <= max(due * 1.1, due + 0.5) && latencies.milliseconds(at: 99) < 1000 && delivered == expected)
        if let before = cpuBefore, let after = cpuAfter, delivered > 0 {
            figures["serverCpuMicrosecondsPerDelivery"] = BenchReport.rounded((after - before) / Double(delivered) * 1_000_000, 2)
            figures["serverCpuSeconds"] = BenchReport.rounded(after - before)
        }
        return figures
    }
}
