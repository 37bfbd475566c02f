import ArgumentParser
import Foundation
import Greenroom

/// `greenroom bench offline`: how soon a new client shows the user's channel list and a
/// channel's messages from its local store, against a cold start from the network.
struct BenchOffline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline",
        abstract: "A new SDK client on a local store of C channels × M messages: time to the channel list and a channel's messages, against a cold start from the network.")

    @Option(help: "Channels the reader is a member of.") var channels: Int = 100
    @Option(help: "Messages in each channel.") var messages: Int = 50
    @Option(help: "Rounds of each start, interleaved.") var rounds: Int = 10
    @OptionGroup var options: BenchOptions

    func run() async throws {
        guard channels > 0, messages > 0, rounds > 0 else { throw ValidationError("sizes must be positive") }
        let target = try await BenchTarget.start(options)
        defer { target.stop() }
        let reader = "reader-\(UUID().uuidString.prefix(8))"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("greenroom-bench-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = try await target.token(reader)
        try await seed(target, reader: reader, token: token)

        BenchReport.progress("filling the reader's store")
        let filler = client(target, store: folder)
        try await filler.connect(token: token)
        let listed = try await filler.channels(limit: channels).items
        for channel in listed { try await filler.channelController(for: channel.id).synchronize(messageLimit: messages) }
        await filler.disconnect()
        guard listed.count == channels else { throw ValidationError("the reader lists \(listed.count) channels, not \(channels)") }
        let first = listed[0].id

        BenchReport.progress("\(rounds) rounds: a new client on the store, then a cold start from the network")
        var fromStore: [Double] = [], fromStoreWithMessages: [Double] = [], cold: [Double] = [], coldWithMessages: [Double] = []
        for _ in 0..<rounds {
            let storeStart = ContinuousClock.now
            let stored = client(target, store: folder)
            let storedList = try await stored.channels(limit: channels).items
            fromStore.append(Self.milliseconds(since: storeStart))
            let storedController = stored.channelController(for: first)
            try await storedController.synchronize(messageLimit: messages)
            fromStoreWithMessages.append(Self.milliseconds(since: storeStart))
            guard storedList.count == channels, storedController.messages.count == messages else {
                throw ValidationError("the store gave \(storedList.count) channels and \(storedController.messages.count) messages")
            }

            let coldStart = ContinuousClock.now
            let network = client(target, store: nil)
            try await network.connect(token: token)
            let networkList = try await network.channels(limit: channels).items
            cold.append(Self.milliseconds(since: coldStart))
            let networkController = network.channelController(for: first)
            try await networkController.synchronize(messageLimit: messages)
            coldWithMessages.append(Self.milliseconds(since: coldStart))
            guard networkList.count == channels else { throw ValidationError("the network gave \(networkList.count) channels") }
            await network.disconnect()
        }
        try BenchReport.figures([
            "bench": "offline", "channels": .number(Double(channels)), "messages": .number(Double(messages)), "rounds": .number(Double(rounds)),
            "storeListMsMedian": BenchReport.rounded(Self.median(fromStore)),
            "storeListAndMessagesMsMedian": BenchReport.rounded(Self.median(fromStoreWithMessages)),
            "coldListMsMedian": BenchReport.rounded(Self.median(cold)),
            "coldListAndMessagesMsMedian": BenchReport.rounded(Self.median(coldWithMessages)),
        ])
    }

    /// Creates the reader's channels, each by a writer of its own who sends the messages.
    private func seed(_ target: BenchTarget, reader: String, token: String) async throws {
        BenchReport.progress("creating \(channels) channels × \(messages) messages")
        let readerClient = client(target, store: nil)
        try await readerClient.connect(token: token)
        await readerClient.disconnect()
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let writer = client(target, store: nil)
                    try await writer.connect(token: try await target.token("writer-\(index)-\(reader)"))
                    let channel = try await writer.createChannel(name: "channel \(index)", members: [reader])
                    let controller = writer.channelController(for: channel.id)
                    for message in 1...messages { try await controller.sendMessage(text: "message \(message) of channel \(index)") }
                    await writer.disconnect()
                }
            }
            for _ in 0..<min(8, channels) { add() }
            while try await group.next() != nil {
                if next < channels { add() }
            }
        }
    }

    private func client(_ target: BenchTarget, store: URL?) -> GreenroomClient {
        var config = ClientConfiguration(serverURL: target.baseURL)
        config.commandTimeout = .seconds(60)
        config.localStore = store
        config.localStoreLimits = LocalStoreLimits(messagesPerChannel: max(messages, 1), channels: max(channels, 1))
        return GreenroomClient(configuration: config)
    }

    private static func milliseconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
}
