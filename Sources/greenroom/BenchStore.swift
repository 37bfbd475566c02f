import ArgumentParser
import Foundation
import GreenroomProtocol
import Synchronization

/// `greenroom bench store`: durable appends, acknowledged, with C in flight.
struct BenchStore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "M events appended over REST with C in flight, each acknowledged once durable; appends per second.")

    @Option(help: "Events to append.") var messages: Int = 2000
    @Option(help: "Appends in flight at once.") var concurrency: Int = 32
    @Option(help: "Streams to spread them over.") var streams: Int = 8
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard messages > 0, concurrency > 0, streams > 0 else { throw ValidationError("sizes must be positive") }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        let prefix = "app:store-\(UUID().uuidString.prefix(8))"
        BenchReport.progress("appending \(messages) events, \(concurrency) in flight, on \(options.database == nil && options.server == nil ? "SQLite" : "the given storage")")
        let next = Tally()
        let failures = Tally()
        let start = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while true {
                        let index = next.add()
                        guard index <= messages else { return }
                        let status = try await target.post(
                            "/v1/streams/\(prefix)-\(index % streams)/events",
                            ["type": "message", "data": ["text": .string("message \(index)"), "n": .number(Double(index))], "idempotencyKey": .string("m\(index)")])
                        if status != 201 { failures.add() }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = Date().timeIntervalSince(start)
        try BenchReport.figures([
            "bench": "store", "storage": .string(options.database == nil ? "sqlite" : "postgres"),
            "messages": .number(Double(messages)), "concurrency": .number(Double(concurrency)),
            "failed": .number(Double(failures.value)), "seconds": BenchReport.rounded(seconds),
            "storedPerSecond": BenchReport.rounded(Double(messages) / seconds, 0),
        ])
        if failures.value > 0 { throw ExitCode(2) }
    }
}
