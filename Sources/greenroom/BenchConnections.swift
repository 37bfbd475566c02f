import ArgumentParser
import Foundation
import GreenroomProtocol
import Logging
import Synchronization
import WSClient

/// `greenroom bench connections`: N idle authenticated connections held open.
struct BenchConnections: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "connections", abstract: "Hold N idle authenticated connections; the server's memory per connection.")

    @Option(help: "Connections to hold.") var count: Int = 1000
    @Option(help: "Seconds to hold them.") var hold: Double = 2
    @Option(help: "Connections a user holds (a server lets one hold 100 by default).") var perUser: Int = 50
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard count > 0, perUser > 0 else { throw ValidationError("--count and --per-user must be positive") }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        try await Task.sleep(for: .milliseconds(300))
        let before = target.memory()
        let open = Tally()
        let failed = Tally()
        let release = Tally()
        BenchReport.progress("opening \(count) connections")
        var tokens: [String] = []
        let perUser = perUser
        for index in 0..<((count + perUser - 1) / perUser) {
            tokens.append(try await target.token("bench-idle-\(index)"))
        }
        let start = Date()
        let holders = Task { [tokens] in
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<count {
                    let token = tokens[index / perUser]
                    group.addTask {
                        var config = WebSocketClientConfiguration()
                        config.additionalHeaders[.authorization] = "Bearer \(token)"
                        do {
                            try await WebSocketClient.connect(url: target.webSocketURL, configuration: config, eventLoopGroup: BenchRawClient.group, logger: Logger(label: "bench")) { inbound, outbound, _ in
                                try await outbound.write(.text(#"{"id":1,"op":"user.me"}"#))
                                var iterator = inbound.makeAsyncIterator()
                                _ = try await iterator.next()
                                open.add()
                                while release.value == 0 { try await Task.sleep(for: .milliseconds(200)) }
                                try await outbound.close(.normalClosure, reason: nil)
                            }
                        } catch {
                            failed.add()
                        }
                    }
                }
            }
        }
        while open.value + failed.value < count && Date().timeIntervalSince(start) < 300 {
            try await Task.sleep(for: .milliseconds(100))
        }
        let openSeconds = Date().timeIntervalSince(start)
        BenchReport.progress("\(open.value) open, \(failed.value) failed; holding \(hold) s")
        try await Task.sleep(for: .seconds(hold))
        let after = target.memory()
        release.add()
        await holders.value
        let held = open.value
        var figures: [String: RawJSON] = [
            "bench": "connections", "requested": .number(Double(count)), "held": .number(Double(held)),
            "failed": .number(Double(failed.value)), "openSeconds": BenchReport.rounded(openSeconds),
        ]
        if let before, let after {
            figures["serverMemoryBeforeMB"] = BenchReport.rounded(Double(before) / 1_048_576, 1)
            figures["serverMemoryMB"] = BenchReport.rounded(Double(after) / 1_048_576, 1)
            if held > 0 { figures["bytesPerConnection"] = .number(Double((after - before) / held)) }
        }
        try BenchReport.figures(figures)
        if held < count { throw ExitCode(2) }
    }
}
