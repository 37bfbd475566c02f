import ArgumentParser
import Foundation
import Greenroom
import GreenroomProtocol

/// `greenroom bench abuse`: what one abusive client costs a polite one. A polite client
/// sends chat messages at a steady rate, one at a time, and its acknowledgement latency is
/// measured alone, beside a heavy client (another user) sending at exactly its write budget
/// (`--write-budget` a second, bursts of twice that), beside an abusive one sending at ten
/// times the budget whatever the answers, and alone again after it: the two alone phases
/// bound what the server's growing data and the machine's drift do without any flood.
/// The same is measured again on a server without a write budget, to show what it buys.
struct BenchAbuse: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "abuse",
        abstract: "A polite client's message latency alone and beside a client sending past its rate limit (and with the limit off).")

    @Option(help: "Seconds of each phase.") var seconds: Double = 10
    @Option(help: "Messages a second the polite client sends.") var politeRate: Double = 50
    @Option(help: "Each user's write budget a second on the limited server (bursts of twice it).") var writeBudget: Int = 100
    @Option(help: "How many times its budget the abusive client sends.") var abuse: Double = 10
    @Option(help: "Connections the abusive client sends over, the rate split between them.") var abuserConnections: Int = 1
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard seconds > 0, politeRate > 0, writeBudget > 0, abuse > 0, (1...100).contains(abuserConnections) else { throw ValidationError("sizes must be positive") }
        let abuserRate = Double(writeBudget) * abuse
        var figures: [String: RawJSON] = ["bench": "abuse", "seconds": .number(seconds), "politeRate": .number(politeRate),
                                          "writeBudget": .number(Double(writeBudget)), "abuserRate": .number(abuserRate),
                                          "abuserConnections": .number(Double(abuserConnections))]
        let phases = [("limited", ["GREENROOM_RATE_WRITES": "\(writeBudget)/\(2 * writeBudget)"]), ("unlimited", ["GREENROOM_RATE_WRITES": "off"])]
        var failures = 0
        for (name, environment) in phases {
            let target = try await BenchTarget.start(options, environment: environment)
            defer { target.stop() }
            let run = UUID().uuidString.prefix(8)
            let polite = try await Self.sender(target, "polite-\(run)")
            let abuser = try await Self.sender(target, "abuser-\(run)")
            if name == "limited" {
                BenchReport.progress("the polite client alone, \(politeRate) messages a second for \(seconds) s")
                failures += Self.record("alone", try await send(polite), in: &figures)
            }
            let token = try await target.token("abuser-\(run)")
            if name == "limited" {
                // A heavy user that keeps to its budget: what the budget itself costs others.
                BenchReport.progress("the polite client beside a client at its budget, \(writeBudget) a second")
                let (beside, heavy) = try await besideSender(polite, target: target, token: token, channel: abuser.channelId.rawValue,
                                                             rate: Double(writeBudget))
                failures += Self.record("atBudget", beside, in: &figures) + heavy.otherErrors + heavy.rateLimited
                try await Task.sleep(for: .seconds(2))
            }
            BenchReport.progress("the polite client beside the abusive one (\(name))")
            let (beside, flood) = try await besideSender(polite, target: target, token: token, channel: abuser.channelId.rawValue, rate: abuserRate)
            // The polite client is never refused; the abusive one is, and only where limited.
            failures += Self.record(name, beside, in: &figures) + flood.otherErrors + (name == "limited" ? (flood.rateLimited == 0 ? 1 : 0) : flood.rateLimited)
            let span = seconds + 1
            figures["\(name)AbuserSentPerSecond"] = BenchReport.rounded(Double(flood.sent) / span, 0)
            figures["\(name)AbuserStoredPerSecond"] = BenchReport.rounded(Double(flood.stored) / span, 0)
            figures["\(name)AbuserRefusedPerSecond"] = BenchReport.rounded(Double(flood.rateLimited) / span, 0)
            if name == "limited" {
                try await Task.sleep(for: .seconds(2))
                BenchReport.progress("the polite client alone again, after the flood")
                failures += Self.record("aloneAfter", try await send(polite), in: &figures)
            }
            await polite.client.disconnect()
            await abuser.client.disconnect()
        }
        try BenchReport.figures(figures)
        if failures > 0 { throw ExitCode(2) }
    }

    /// Puts a phase's polite p50, p99 and failures into `figures` under `phase`; returns
    /// the failures.
    static func record(_ phase: String, _ polite: (latencies: Latencies, failed: Int), in figures: inout [String: RawJSON]) -> Int {
        figures["\(phase)P50Ms"] = BenchReport.rounded(polite.latencies.milliseconds(at: 50))
        figures["\(phase)P99Ms"] = BenchReport.rounded(polite.latencies.milliseconds(at: 99))
        figures["\(phase)Failed"] = .number(Double(polite.failed))
        return polite.failed
    }

    /// The polite client's latencies while another sends `message.send` at `rate` a second
    /// over ``abuserConnections`` raw connections whatever the answers, and what became of
    /// those.
    func besideSender(_ polite: ChatChannelController, target: BenchTarget, token: String, channel channelId: String,
                      rate: Double) async throws -> ((latencies: Latencies, failed: Int), PacedSenderHandler.Result) {
        let deadline = ContinuousClock.now + .seconds(seconds + 1)
        let url = target.webSocketURL
        let connections = abuserConnections
        let sending = Task {
            try await withThrowingTaskGroup(of: PacedSenderHandler.Result.self) { group in
                for _ in 0..<connections {
                    group.addTask {
                        try await PacedSenderHandler.run(url: url, token: token, channelId: channelId, rate: rate / Double(connections),
                                                         deadline: deadline)
                    }
                }
                return try await group.reduce(into: PacedSenderHandler.Result()) { total, one in
                    total.sent += one.sent
                    total.stored += one.stored
                    total.rateLimited += one.rateLimited
                    total.otherErrors += one.otherErrors
                }
            }
        }
        try await Task.sleep(for: .milliseconds(500))
        let beside = try await send(polite)
        return (beside, try await sending.value)
    }

    /// A connected client of `user` with a channel of its own to send in.
    static func sender(_ target: BenchTarget, _ user: String) async throws -> ChatChannelController {
        let client = GreenroomClient(configuration: ClientConfiguration(serverURL: target.baseURL))
        try await client.connect(token: try await target.token(user))
        let channel = try await client.createChannel(id: ChannelId("bench-\(user)"))
        return client.channelController(for: channel.id)
    }

    /// Sends at `politeRate` for `seconds`, one message at a time; each one's latency from
    /// its send to its acknowledgement.
    func send(_ controller: ChatChannelController) async throws -> (latencies: Latencies, failed: Int) {
        var latencies = Latencies()
        var failed = 0
        let clock = ContinuousClock()
        let start = clock.now
        let count = Int(seconds * politeRate)
        for index in 0..<count {
            try await clock.sleep(until: start + .seconds(Double(index) / politeRate))
            let sent = clock.now
            do {
                _ = try await controller.sendMessage(text: "polite \(index)")
                let elapsed = clock.now - sent
                latencies.record(milliseconds: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
            } catch {
                failed += 1
            }
        }
        return (latencies, failed)
    }
}
