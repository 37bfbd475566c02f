import ArgumentParser
import Foundation
import Greenroom
import Synchronization

/// `greenroom bench reconnect`: N SDK clients dropped at once while events flow.
struct BenchReconnect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reconnect",
        abstract: "N SDK subscribers; the server cuts them all at once while events flow; time to resume, events lost, duplicates.")

    @Option(help: "Clients.") var clients: Int = 200
    @Option(help: "Events published in all.") var events: Int = 200
    @Option(help: "Events published per second.") var rate: Double = 100
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard clients > 0, events > 1, rate > 0 else { throw ValidationError("sizes must be positive") }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        let stream = "app:storm-\(UUID().uuidString.prefix(8))"
        BenchReport.progress("connecting \(clients) SDK clients")
        var sdkClients: [GreenroomClient] = []
        var subscriptions: [StreamSubscription] = []
        for index in 0..<clients {
            var config = ClientConfiguration(serverURL: target.baseURL)
            config.initialReconnectDelay = .milliseconds(100)
            config.maxReconnectDelay = .seconds(2)
            config.commandTimeout = .seconds(30)
            let client = GreenroomClient(configuration: config)
            try await client.connect(token: try await target.token("storm-\(index)"))
            sdkClients.append(client)
            subscriptions.append(try await client.subscribe(to: stream))
        }
        let collectors = subscriptions.map { subscription in
            Task {
                var offsets: [UInt64] = []
                for await event in subscription.events {
                    offsets.append(event.offset)
                    if offsets.count >= events { break }
                }
                return offsets
            }
        }
        BenchReport.progress("publishing \(events) events at \(rate)/s; cutting every connection halfway")
        let start = Date()
        var watcher: Task<Double?, Never>?
        for index in 1...events {
            let due = start.addingTimeInterval(Double(index - 1) / rate)
            if due.timeIntervalSinceNow > 0 { try await Task.sleep(for: .seconds(due.timeIntervalSinceNow)) }
            try await target.post("/v1/streams/\(stream)/events", ["type": "bench", "data": .number(Double(index))])
            if index == events / 2 {
                try await target.post("/v1/connections/disconnect", ["cut": true])
                let cut = Date()
                watcher = Task { [sdkClients] in await Self.timeUntilAllConnected(sdkClients, since: cut) }
            }
        }
        // Time from the cut until every client was connected (and resubscribed) again,
        // watched while the rest of the events were published.
        let resumedAfter = await watcher?.value
        var lost = 0, duplicates = 0, unordered = 0
        for collector in collectors {
            let received = await withTaskGroup(of: [UInt64]?.self) { group in
                group.addTask { await collector.value }
                group.addTask {
                    try? await Task.sleep(for: .seconds(60))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? []
            }
            lost += events - Set(received).count
            duplicates += received.count - Set(received).count
            unordered += zip(received, received.dropFirst()).filter { $0.0 >= $0.1 }.count
        }
        for client in sdkClients { await client.disconnect() }
        try BenchReport.figures([
            "bench": "reconnect", "clients": .number(Double(clients)), "events": .number(Double(events)),
            "resumedAllSeconds": resumedAfter.map { BenchReport.rounded($0) } ?? .nil,
            "lost": .number(Double(lost)), "duplicates": .number(Double(duplicates)), "outOfOrder": .number(Double(unordered)),
        ])
        if lost > 0 || duplicates > 0 || resumedAfter == nil { throw ExitCode(2) }
    }

    /// Seconds after `cut` until every client is connected again (nil after two minutes);
    /// prints how many are back each second.
    static func timeUntilAllConnected(_ clients: [GreenroomClient], since cut: Date) async -> Double? {
        var lastReport = Date()
        var noticed = false
        while Date().timeIntervalSince(cut) < 120 {
            let connected = clients.count { $0.connectionState == .connected }
            // Count only once the clients have noticed the cut.
            if connected < clients.count || Date().timeIntervalSince(cut) > 5 { noticed = true }
            if noticed, connected == clients.count { return Date().timeIntervalSince(cut) }
            if Date().timeIntervalSince(lastReport) >= 1 {
                lastReport = Date()
                BenchReport.progress("\(connected) of \(clients.count) connected again after \(String(format: "%.1f", Date().timeIntervalSince(cut))) s")
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
