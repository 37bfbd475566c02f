import AsyncHTTPClient
import Foundation
import GreenroomProtocol
import Greenroom
@testable import GreenroomServer
import Synchronization
import Testing

@Suite("Slow consumers, graceful shutdown and restarts", .wholeRun)
struct LifecycleTests {
    @Test("a client that stops reading until its socket is full, then reads again, receives every event in order and is not dropped")
    func pausingReader() async throws {
        // The reader answers no ping while it reads nothing (its pongs would wait behind the
        // events): a heartbeat longer than the test keeps a loaded machine's slow publishing
        // from ending it as a dead client, which is not what this test is about.
        try await withServer({ $0.heartbeatInterval = 600 }) { server in
            let reader = try RawSocket(port: server.port, receiveBufferBytes: 4096)
            let token = try await server.token("pauser", grants: ["app:burst"])
            #expect(try await reader.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            try reader.sendText(#"{"id":1,"op":"stream.subscribe","args":{"stream":"app:burst"}}"#)
            #expect(try RawJSON(json: try await reader.readText())["result"]?["recovered"] == true)
            // 9.6 MB while the client reads nothing: more than the sockets hold (the kernel
            // buffers a send of at most 4 MB), so the server's writes wait, and must go on
            // once the client reads (under the queue limit of 1,024 events: nobody is dropped).
            let payload = RawJSON.string(String(repeating: "q", count: 16 * 1024))
            for n in 1...600 {
                try await server.server.publish(stream: "app:burst", data: ["n": .number(Double(n)), "pad": payload])
            }
            var offsets: [Double] = []
            while offsets.count < 600 {
                let frame = try RawJSON(json: try await reader.readText(timeout: .seconds(20)))
                if let offset = frame["event"]?["offset"]?.numberValue { offsets.append(offset) }
            }
            #expect(offsets == (1...600).map(Double.init))
            let drops = server.server.metrics.exposition().split(separator: "\n").first { $0.hasPrefix("greenroom_outbound_queue_drops_total ") }
            #expect(drops?.hasSuffix(" 0") == true, "\(String(describing: drops))")
            #expect(server.server.connectionCount == 1)
        }
    }

    @Test("a client that stops reading is disconnected; 20 other subscribers receive everything")
    func slowConsumer() async throws {
        try await withServer({ $0.outboundQueueLimit = 32 }) { server in
            var subscriptions: [StreamSubscription] = []
            for index in 0..<20 {
                let client = try await server.client("reader\(index)", grants: ["app:firehose"])
                subscriptions.append(try await client.subscribe(to: "app:firehose"))
            }
            // The 20 read as they come, each recording how far it got, until cancelled.
            let received = Locked([Int](repeating: 0, count: 20))
            let readers = subscriptions.enumerated().map { index, subscription in
                Task { () -> (offsets: [UInt64], recoveries: [Bool]) in
                    var offsets: [UInt64] = []
                    var recoveries: [Bool] = []
                    for await update in subscription.updates {
                        switch update {
                        case .event(let event): offsets.append(event.offset)
                        case .resubscribed(let recovered): recoveries.append(recovered)
                        }
                        let count = offsets.count
                        received.withLock { $0[index] = count }
                    }
                    return (offsets, recoveries)
                }
            }
            // The slow one: a tiny receive buffer, subscribed, and never reads again.
            let slow = try RawSocket(port: server.port, receiveBufferBytes: 4096)
            let token = try await server.token("sloth", grants: ["app:firehose"])
            #expect(try await slow.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            try slow.sendText(#"{"id":1,"op":"stream.subscribe","args":{"stream":"app:firehose"}}"#)
            let subscribed = try RawJSON(json: try await slow.readText())
            #expect(subscribed["result"]?["recovered"] == true)

            let payload = RawJSON.string(String(repeating: "p", count: 2048))
            var published = 0
            func drops() -> Int {
                let line = server.server.metrics.exposition().split(separator: "\n").first { $0.hasPrefix("greenroom_outbound_queue_drops_total ") }
                return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
            }
            // Published no more than 16 ahead of the slowest reader, so only the one that
            // never reads can fill its queue of 32, however slowly the machine runs.
            func publish() async throws {
                try await eventually("the readers keep up") { received.value.min() ?? 0 >= published - 16 }
                published += 1
                try await server.server.publish(stream: "app:firehose", data: ["n": .number(Double(published)), "pad": payload])
            }
            while drops() == 0 && published < 6000 { try await publish() }
            #expect(drops() == 1, "\(drops()) connections were dropped after \(published) events")
            for _ in 0..<50 { try await publish() }
            _ = try await slow.readUntilClosed(timeout: .seconds(30))
            try await eventually("every reader has every event", timeout: .seconds(60)) { received.value.allSatisfy { $0 >= published } }
            for reader in readers { reader.cancel() }
            for reader in readers {
                let (offsets, recoveries) = await reader.value
                #expect(offsets == Array(1...UInt64(published)))
                #expect(recoveries.isEmpty)
            }
            try await eventually("only the 20 remain") { server.server.connectionCount == 20 }
            #expect(drops() == 1)
        }
    }

    @Test("the operator's disconnect endpoint closes (4000) or cuts connections; clients resume")
    func operatorDisconnect() async throws {
        try await withServer { server in
            let client = try await server.client("alice", grants: ["app:ops"])
            let subscription = try await client.subscribe(to: "app:ops")
            let raw = try RawSocket(port: server.port)
            let token = try await server.token("bob")
            #expect(try await raw.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            try await eventually("both are connected") { server.server.connectionCount == 2 }
            let (status, body) = try await server.rest("POST", "/v1/connections/disconnect", body: ["userId": "bob"])
            #expect(status == 200 && body["disconnected"] == 1)
            #expect(try await raw.readUntilClosed() == CloseCode.serverRestarting.rawValue)
            try await eventually("bob's connection is gone") { server.server.connectionCount == 1 }
            let (_, cut) = try await server.rest("POST", "/v1/connections/disconnect", body: ["cut": true])
            #expect(cut["disconnected"] == 1)
            try await server.server.publish(stream: "app:ops", data: 1)
            let (events, recoveries) = try await collect(subscription, count: 1)
            #expect(events.map(\.offset) == [1])
            #expect(recoveries.allSatisfy { $0 })
            let (denied, _) = try await server.rest("POST", "/v1/connections/disconnect", body: [:], key: "")
            #expect(denied == 401)
            await client.disconnect()
        }
    }

    @Test("graceful shutdown tells clients to reconnect; a restart keeps users and logs; clients resume")
    func shutdownAndRestart() async throws {
        let directory = TestServer.makeDataDirectory()
        let first = try await TestServer.start(dataDirectory: directory)
        let port = first.port
        let (created, _) = try await first.rest("POST", "/v1/users", body: ["id": "keeper", "nickname": "Keeper", "extraData": ["k": 1]])
        #expect(created == 201)
        for index in 1...10 { try await first.server.publish(stream: "app:log", data: ["n": .number(Double(index))]) }

        let client = try await first.client("alice", grants: ["app:log"]) {
            $0.initialReconnectDelay = .milliseconds(100)
            $0.maxReconnectDelay = .milliseconds(300)
        }
        let subscription = try await client.subscribe(to: "app:log", since: StreamPosition(offset: 0, epoch: nil))
        let (before, _) = try await collect(subscription, count: 10)
        #expect(before.map(\.offset) == Array(1...10).map(UInt64.init))

        let raw = try RawSocket(port: port)
        let token = try await first.token("watcher")
        #expect(try await raw.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
        try await eventually("both clients are connected") { first.server.connectionCount == 2 }

        // Appends racing the shutdown: every one acknowledged must survive it.
        let acknowledged = Locked<[UInt64]>([])
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 11...60 {
                    group.addTask {
                        if let event = try? await first.server.publish(stream: "app:log", data: ["n": .number(Double(index))]) {
                            acknowledged.withLock { $0.append(event.offset) }
                        }
                    }
                }
            }
        }
        try await first.shutdown()
        await writers.value
        #expect(try await raw.readUntilClosed(timeout: .seconds(10)) == CloseCode.serverRestarting.rawValue)
        try await eventually("the client notices") { client.connectionState != .connected }

        let second = try await TestServer.start(dataDirectory: directory, port: port)
        let (kept, keeper) = try await second.rest("GET", "/v1/users/keeper")
        #expect(kept == 200 && keeper["extraData"]?["k"]?.numberValue == 1)
        let (_, log) = try await second.rest("GET", "/v1/streams/app:log/events?after=0&limit=1000")
        let stored = Set(log.arrayValue?.compactMap { $0["offset"]?.numberValue.map { UInt64($0) } } ?? [])
        let acked = acknowledged.value
        #expect(acked.allSatisfy(stored.contains), "acknowledged but lost: \(acked.filter { !stored.contains($0) })")
        #expect(stored.isSuperset(of: Set(1...10)))
        let head = stored.max() ?? 10

        try await eventually("the client is back", timeout: .seconds(20)) { client.connectionState == .connected }
        try await second.server.publish(stream: "app:log", data: ["n": "after restart"])
        let (after, recoveries) = try await collect(subscription, count: Int(head) - 10 + 1)
        #expect(after.map(\.offset) == Array(11...(head + 1)))
        #expect(recoveries == [true])
        #expect(after.last?.data["n"]?.stringValue == "after restart")
        #expect(after.last?.epoch == before.first?.epoch)
        await client.disconnect()
        try await second.shutdown()
    }

    @Test("a server on the IPv6 loopback names itself with the address in brackets; the SDK and REST reach it there")
    func ipv6Host() async throws {
        try await withServer({ $0.host = "::1" }) { server in
            #expect(server.server.baseURL.absoluteString == "http://[::1]:\(server.port)")
            #expect(server.server.webSocketURL.absoluteString == "ws://[::1]:\(server.port)/v1/connect")
            let alice = try await server.client("alice")
            #expect(try await alice.send(UserOperation.me, args: EmptyResult()).id == "alice")
            // FoundationNetworking refuses bracketed hosts (NSURLErrorBadURL); AsyncHTTPClient
            // takes the URL as the server gives it.
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: server.server.baseURL.absoluteString + "/health"), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 1 << 16)
            #expect(response.status == .ok && String(buffer: body).contains("ok"))
        }
    }

    @Test("a client holding a half-sent request or an idle connection does not keep the server from stopping")
    func shutdownWithStuckClients() async throws {
        let server = try await TestServer.start { $0.shutdownGrace = 1 }
        // Headers that promise 1,000 bytes of body, then 10 of them, then nothing.
        let half = try RawSocket(port: server.port)
        try half.write(Array("POST /v1/users HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(server.apiKey)\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\": \"x".utf8))
        // Only the request line: the headers never end.
        let partial = try RawSocket(port: server.port)
        try partial.write(Array("GET /health HTTP/1.1\r\nHost: local".utf8))
        // A keep-alive connection that asked once and stays.
        let idle = try RawSocket(port: server.port)
        try idle.write(Array("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        try await Task.sleep(for: .milliseconds(200))
        // The three never send another byte: a shutdown that waited for them would not end.
        // It ends after the drain grace and the HTTP grace (1 s each); the bound here is only
        // what a loaded machine may add to that.
        try await withTimeout(.seconds(60), "the shutdown, whatever the clients hold") { try await server.shutdown() }
        #expect(try await half.readUntilEOF(timeout: .seconds(5)))
        #expect(try await partial.readUntilEOF(timeout: .seconds(5)))
        #expect(try await idle.readUntilEOF(timeout: .seconds(5)))
    }
}

extension LifecycleTests {
    @Test("a client cut off while its sends wait for the database leaves nothing waiting: its connection ends, what it sent is stored in order, and the next writes go through")
    func cutWhileWaiting() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let channel: ChannelId = "held"
            _ = try await alice.createChannel(id: channel, name: "Held", members: [])
            guard let storage = server.server.core.storage as? SQLiteStorage else {
                Issue.record("the default storage is not SQLite")
                return
            }
            let socket = try RawSocket(port: server.port)
            #expect(try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(try await server.token("alice"))"]).status == 101)
            // The 101 may reach the client before the server has counted the session.
            try await eventually("the raw client's session has started") { server.server.connectionCount == 2 }
            // The test holds the database's write lock: the sends queue up with the node's
            // writer, which waits for the lock, and the client is cut off meanwhile.
            try await storage.writeLock.withLock {
                for n in 1...30 {
                    try socket.sendText(#"{"id":\#(n),"op":"message.send","args":{"channelId":"held","text":"w\#(n)"}}"#)
                }
                try await eventually("the node's writer waits for the lock") { storage.writeLock.status.waiting >= 1 }
                socket.cut()
            }
            // Every waiter was let go: the lock is free, and the cut connection's commands
            // ended (its session ends only after they have), so it is gone.
            try await eventually("nothing waits for the lock") { storage.writeLock.status == (false, 0) }
            try await eventually("the cut connection has ended") { server.server.connectionCount == 1 }
            let after = try await alice.channelController(for: channel).sendMessage(text: "after")
            let page = try await alice.send(ChatOperation.listMessages, args: MessageListArgs(channelId: channel, limit: 100))
            let texts = page.items.map(\.text)
            // At least the send the writer waited with was stored (all that were read
            // before the cut are: their commands run to the end).
            #expect(texts.count >= 2, "\(texts)")
            #expect(texts.last == "after" && after.sequence == Int64(texts.count))
            #expect(Array(texts.dropLast()) == (0..<(texts.count - 1)).map { "w\($0 + 1)" }, "the cut client's sends, in the order sent")
            #expect(page.items.map(\.sequence) == (1...texts.count).map(Int64.init))
        }
    }
}
