import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension MultiNodeTests {
    @Test("a rolling restart of two nodes while six members chat: each client moves to the other node and back, every acknowledged message is stored once and reaches every member in order, and each resumes with recovered: true")
    func rollingRestart() async throws {
        try await withCluster { url, directory in
            let first = try await node(url, directory)
            let second = try await node(url, directory)
            let ports = [first.port, second.port]
            let urls = [first.url, second.url]
            var nodes = [first, second]
            // Three clients start on each node, the other one named as their alternate.
            var clients: [GreenroomClient] = []
            for index in 0..<6 {
                let home = index % 2
                clients.append(try await nodes[home].client("user\(index)") { $0.alternateServerURLs = [urls[1 - home]] })
            }
            let square = ChannelId("square")
            _ = try await clients[0].createChannel(id: square, members: (1..<6).map { "user\($0)" })
            var subscriptions: [StreamSubscription] = []
            for client in clients {
                subscriptions.append(try await client.subscribe(to: square.stream, since: StreamPosition(offset: 0, epoch: nil)))
            }

            // Each member sends until the restarts are over, retrying a message (under its
            // idempotency key) until it is acknowledged.
            let restarting = Locked(true)
            let acknowledged = Locked<[String]>([])
            let senders = clients.map { $0.channelController(for: square) }
            let chatting = Task {
                await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, sender) in senders.enumerated() {
                        group.addTask {
                            var number = 0
                            while restarting.value || number < 5 {
                                number += 1
                                let key = "c\(index)-\(number)"
                                var attempts = 0
                                while true {
                                    do {
                                        _ = try await sender.sendMessage(text: key, idempotencyKey: key)
                                        break
                                    } catch {
                                        attempts += 1
                                        guard attempts < 600 else {
                                            Issue.record("member \(index) could not send \(key) in 30 s: \(error)")
                                            return
                                        }
                                        try await Task.sleep(for: .milliseconds(50))
                                    }
                                }
                                acknowledged.withLock { $0.append(key) }
                                try await Task.sleep(for: .milliseconds(20))
                            }
                        }
                    }
                }
            }

            // One node after the other: stopped gracefully (its clients are told to
            // reconnect and go to the other), then started again on its address.
            for restarted in 0..<2 {
                try await eventually("messages flow before node \(restarted + 1) restarts") { acknowledged.value.count >= 12 * (restarted + 1) }
                try await nodes[restarted].shutdown()
                nodes[restarted] = try await TestServer.start(dataDirectory: directory, port: ports[restarted]) { $0.databaseURL = url }
                try await eventually("every client is connected again") { clients.allSatisfy { $0.connectionState == .connected } }
            }
            restarting.withLock { $0 = false }
            await chatting.value

            let keys = acknowledged.value
            #expect(Set(keys).count == keys.count && keys.count >= 30)
            for (index, subscription) in subscriptions.enumerated() {
                let (events, recoveries) = try await collect(subscription, "member \(index)'s messages") { events in
                    events.filter { $0.type == ChatEventType.messageNew }.count >= keys.count
                }
                #expect(events.map(\.offset) == Array(1...UInt64(events.count)), "member \(index): every event once, in order")
                let texts = events.filter { $0.type == ChatEventType.messageNew }.compactMap { $0.data["message"]?["text"]?.stringValue }
                #expect(texts.count == keys.count && Set(texts) == Set(keys), "member \(index): what was acknowledged, once each")
                #expect(!recoveries.isEmpty && recoveries.allSatisfy { $0 }, "member \(index) resumed: \(recoveries)")
            }
            for client in clients { await client.disconnect() }
            for node in nodes { try await node.shutdown() }
        }
    }
}
