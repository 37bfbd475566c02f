import ArgumentParser
import Foundation
import Greenroom
import Synchronization

/// `greenroom bench store`: chat messages sent and acknowledged (each stored durably before
/// its reply), with C in flight.
struct BenchStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "M chat messages sent over WebSockets with C in flight, each acknowledged once stored; messages per second.")

    @Option(help: "Messages to send.") var messages: Int = 2000
    @Option(help: "Messages in flight at once.") var concurrency: Int = 32
    @Option(help: "Channels (and senders) to spread them over.") var streams: Int = 8
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard messages > 0, concurrency > 0, streams > 0 else { throw ValidationError("sizes must be positive") }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        let run = UUID().uuidString.prefix(8)
        BenchReport.progress("sending \(messages) chat messages, \(concurrency) in flight, over \(streams) channels, on \(options.startedStorage == "sqlite" ? "SQLite" : "the given storage")")
        var controllers: [ChatChannelController] = []
        var clients: [GreenroomClient] = []
        for index in 0..<streams {
            var config = ClientConfiguration(serverURL: target.baseURL)
            config.commandTimeout = .seconds(120)
            let client = GreenroomClient(configuration: config)
            try await client.connect(token: try await target.token("sender-\(run)-\(index)", grants: ["app:*", BenchTarget.unmetered]))
            let channel = try await client.createChannel(id: ChannelId("bench-\(run)-\(index)"))
            controllers.append(client.channelController(for: channel.id))
            clients.append(client)
        }
        // The messages go out over raw WebSockets (one per channel, as its creator), with
        // the in-flight window split between them: the load generator costs little, so the
        // figure is the server's.
        let next = Tally()
        let window = max(1, (concurrency + streams - 1) / streams)
        let deadline = ContinuousClock.now + .seconds(600)
        let url = target.webSocketURL
        let start = Date()
        let cpuBefore = target.cpuSeconds
        let results = try await withThrowingTaskGroup(of: RawSenderHandler.Result.self) { group in
            for (index, controller) in controllers.enumerated() {
                let token = try await target.token("sender-\(run)-\(index)", grants: ["app:*", BenchTarget.unmetered])
                let channelId = controller.channelId.rawValue
                group.addTask {
                    try await RawSenderHandler.run(url: url, token: token, channelId: channelId, window: window,
                                                   next: next, total: messages, deadline: deadline)
                }
            }
            return try await group.reduce(into: [RawSenderHandler.Result]()) { $0.append($1) }
        }
        let seconds = Date().timeIntervalSince(start)
        let cpuAfter = target.cpuSeconds
        let failures = results.reduce(0) { $0 + $1.failed + $1.unanswered }
        var stored = 0
        for sender in controllers {
            // A fresh controller reads the history from the newest message back.
            let controller = sender.client.channelController(for: sender.channelId)
            var before: String?
            repeat {
                let page = try await controller.loadPreviousMessages(before: before, limit: 100)
                stored += page.items.count
                before = page.next
            } while before != nil
        }
        for client in clients { await client.disconnect() }
        var figures: [String: RawJSON] = [
            "bench": "store", "storage": .string(options.startedStorage ?? "the measured server's"),
            "messages": .number(Double(messages)), "concurrency": .number(Double(concurrency)),
            "failed": .number(Double(failures)), "stored": .number(Double(stored)), "seconds": BenchReport.rounded(seconds),
            "storedPerSecond": BenchReport.rounded(Double(messages) / seconds, 0),
        ]
        // The server's own CPU (not the database's) a message, while they were sent: steadier
        // than the rate on a machine whose pace drifts.
        if let before = cpuBefore, let after = cpuAfter {
            figures["serverCpuMicrosecondsPerMessage"] = BenchReport.rounded((after - before) / Double(messages) * 1_000_000, 1)
        }
        try BenchReport.figures(figures)
        if failures > 0 || stored != messages { throw ExitCode(2) }
    }
}
