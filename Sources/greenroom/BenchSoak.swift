import ArgumentParser
import Foundation
import Greenroom
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `greenroom bench soak`: mixed traffic against one server for some minutes; the server's
/// memory, open files and threads are sampled each minute and must end flat, and nothing
/// acknowledged may be lost.
struct BenchSoak: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Mixed traffic (chat, app streams, live events, meetings, connection churn, reconnect storms, slow consumers) for M minutes; fails when memory, open files or threads grow past 10% of their level after the first minute, or anything acknowledged is lost.")

    @Option(help: "Minutes of traffic (the first is the warm-up).") var minutes: Int = 2
    @Option(help: "SDK clients that chat and subscribe throughout.") var clients: Int = 40
    @Option(help: "Growth allowed after the warm-up, in percent.") var tolerance: Double = 10
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard minutes >= 2, clients >= 2 else { throw ValidationError("at least 2 minutes and 2 clients") }
        // A short outbound queue for the server started here, so that slow consumers are
        // dropped within seconds (the path a soak must show leaks nothing).
        if options.server == nil { setenv("GREENROOM_OUTBOUND_QUEUE", "64", 1) }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        let load = try await SoakLoad.start(target: target, clients: clients)
        let end = Date().addingTimeInterval(Double(minutes) * 60)
        var samples: [SoakSample] = []
        let traffic = Task { await load.run(until: end) }
        for minute in 1...minutes {
            let due = end.addingTimeInterval(Double(minute - minutes) * 60)
            if due.timeIntervalSinceNow > 0 { try await Task.sleep(for: .seconds(due.timeIntervalSinceNow)) }
            let sample = SoakSample.take(target, minute: minute)
            samples.append(sample)
            BenchReport.progress("minute \(minute): \(sample.line) (\(load.summary))")
        }
        await traffic.value
        BenchReport.progress("checking that nothing acknowledged was lost")
        let lost = try await load.verify()
        await load.close()
        let drops = try await target.metric("greenroom_outbound_queue_drops_total") ?? 0

        let warm = samples[0], last = samples[samples.count - 1]
        let limit = 1 + tolerance / 100
        var grew: [String] = []
        if Double(last.rss) > Double(warm.rss) * limit { grew.append("memory \(warm.rss >> 20) → \(last.rss >> 20) MB") }
        if Double(last.files) > Double(warm.files) * limit + 2 { grew.append("open files \(warm.files) → \(last.files)") }
        if Double(last.threads) > Double(warm.threads) * limit + 1 { grew.append("threads \(warm.threads) → \(last.threads)") }
        try BenchReport.figures([
            "bench": "soak", "minutes": .number(Double(minutes)), "clients": .number(Double(clients)),
            "samples": .array(samples.map(\.json)),
            "acknowledged": .number(Double(load.acknowledged)), "lost": .number(Double(lost)),
            "operations": .number(Double(load.operations.value)), "failures": .number(Double(load.failures.value)),
            "storms": .number(Double(load.storms.value)), "slowConsumersDropped": .number(drops),
            "grew": .array(grew.map(RawJSON.string)),
        ])
        if lost > 0 || !grew.isEmpty {
            throw ValidationError("soak failed: \(lost) acknowledged messages or events lost; \(grew.isEmpty ? "nothing grew" : grew.joined(separator: ", "))")
        }
    }
}

/// One minute's look at the server process.
struct SoakSample {
    var minute: Int
    var rss: Int
    var files: Int
    var threads: Int

    static func take(_ target: BenchTarget, minute: Int) -> SoakSample {
        let pid = target.process?.pid ?? 0
        let files = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let threads = status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            .flatMap { Int($0.split(separator: "\t").last?.trimmingCharacters(in: .whitespaces) ?? "") } ?? 0
        return SoakSample(minute: minute, rss: target.memory() ?? 0, files: files, threads: threads)
    }

    var line: String { "RSS \(rss >> 20) MB, \(files) open files, \(threads) threads" }
    var json: RawJSON {
        ["minute": .number(Double(minute)), "rssBytes": .number(Double(rss)), "openFiles": .number(Double(files)), "threads": .number(Double(threads))]
    }
}
