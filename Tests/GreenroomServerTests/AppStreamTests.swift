import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

@Suite("App streams: the backend publishes over REST, granted clients over their WebSocket", .wholeRun)
struct AppStreamTests {
    @Test("a batch (POST /v1/events) stores many events to several streams in one commit, in order; a repeated idempotency key stores nothing new; a batch with one bad event stores none of it")
    func batch() async throws {
        try await withServer { server in
            let bob = try await server.client("bob", grants: ["app:*"])
            let scores = try await bob.subscribe(to: "app:scores")
            let own = try await bob.subscribe(to: "user:bob")
            func item(_ stream: String, _ value: Int, key: String? = nil) -> RawJSON {
                var item: [String: RawJSON] = ["stream": .string(stream), "type": "score", "data": ["n": .number(Double(value))]]
                if let key { item["idempotencyKey"] = .string(key) }
                return .dictionary(item)
            }
            let (status, answer) = try await server.rest("POST", "/v1/events", body: ["events": [
                item("app:scores", 1), item("user:bob", 2), item("app:scores", 3, key: "k3"),
            ]])
            #expect(status == 201, "\(answer)")
            let results = try answer.decode(as: BatchPublishResult.self).results
            #expect(results.map(\.event.stream) == ["app:scores", "user:bob", "app:scores"] && results.allSatisfy { !$0.duplicate })
            let delivered = try await collect(scores, count: 2).events
            #expect(delivered.map { $0.data["n"]?.numberValue } == [1, 3])
            #expect(try await collect(own, count: 1).events.first?.data["n"]?.numberValue == 2)

            // A retried batch: the keyed event is the earlier one; the others are new.
            let (again, retried) = try await server.rest("POST", "/v1/events", body: ["events": [item("app:scores", 3, key: "k3"), item("app:scores", 4)]])
            #expect(again == 201)
            let second = try retried.decode(as: BatchPublishResult.self).results
            #expect(second.map(\.duplicate) == [true, false] && second[0].event.offset == results[2].event.offset)
            #expect(try await collect(scores, count: 1).events.map { $0.data["n"]?.numberValue } == [4])

            // One bad event (a stream the app may not publish to): the whole batch is refused.
            let before = try await server.rest("GET", "/v1/streams/app:scores/events?after=0").1.arrayValue?.count
            let (refused, error) = try await server.rest("POST", "/v1/events", body: ["events": [item("app:scores", 5), item("meeting:m1", 6)]])
            #expect(refused == 400 && error["error"]?["message"]?.stringValue?.hasPrefix("events[1]:") == true, "\(error)")
            #expect(try await server.rest("GET", "/v1/streams/app:scores/events?after=0").1.arrayValue?.count == before)
            #expect(try await server.rest("POST", "/v1/events", body: ["events": []]).0 == 400)
            #expect(try await server.rest("POST", "/v1/events", body: ["events": [item("app:scores", 7)]], key: "wrong").0 == 401)
        }
    }

    @Test("a batch's events reach a subscriber whole and in order, whether its connection's turn writes them joined in one buffer (a few KB) or frame by frame (over 16 KB)")
    func batchFramesWrittenTogether() async throws {
        try await withServer { server in
            let bob = try await server.client("bob", grants: ["app:*"])
            let scores = try await bob.subscribe(to: "app:scores")
            // Each batch is handed to bob's connection at once, so its turn finds every frame:
            // 40 small ones come to a few KB, 60 of 600–660 bytes to about 40 KB.
            for (count, padding) in [(40, 1), (60, 600)] {
                let items: [RawJSON] = (0..<count).map { index in
                    ["stream": "app:scores", "type": "score",
                     "data": ["n": .number(Double(index)), "text": .string(String(repeating: "x", count: padding + index))]]
                }
                let (status, answer) = try await server.rest("POST", "/v1/events", body: ["events": .array(items)])
                #expect(status == 201, "\(answer)")
                let events = try await collect(scores, count: count).events
                #expect(events.count == count)
                #expect(events.map { $0.data["n"]?.numberValue } == (0..<count).map { Double($0) })
                #expect(events.map { $0.data["text"]?.stringValue?.count } == (0..<count).map { padding + $0 })
                #expect(zip(events, events.dropFirst()).allSatisfy { $1.offset == $0.offset + 1 })
            }
        }
    }

    @Test("a client whose token grants publish:app:NAME publishes over its WebSocket: stored before the reply, delivered to subscribers with publishedBy set by the server, its own idempotency keys; refused without the grant, to other streams, with bad data, and the connection goes on")
    func clientPublish() async throws {
        try await withServer { server in
            let alice = try await server.client("alice", grants: ["publish:app:scores"])
            let carol = try await server.client("carol", grants: ["publish:app:*"])
            let bob = try await server.client("bob", grants: ["app:*"])
            let scores = try await bob.subscribe(to: "app:scores")

            let first = try await alice.publish(to: "app:scores", type: "score", data: ["n": 1, "publishedBy": "mallory"], idempotencyKey: "k1")
            #expect(first.event.stream == "app:scores" && first.event.type == "score" && !first.duplicate)
            #expect(first.event.data["publishedBy"]?.stringValue == "alice", "the server names the publisher, whatever the client wrote")
            let delivered = try await collect(scores, count: 1).events
            #expect(delivered.first?.offset == first.event.offset && delivered.first?.data["n"]?.numberValue == 1)
            #expect(delivered.first?.data["publishedBy"]?.stringValue == "alice")

            // A retry stores nothing new; another user's equal key is its own.
            let retried = try await alice.publish(to: "app:scores", type: "score", data: ["n": 1], idempotencyKey: "k1")
            #expect(retried.duplicate && retried.event.offset == first.event.offset)
            let carols = try await carol.publish(to: "app:scores", data: ["n": 2], idempotencyKey: "k1")
            #expect(!carols.duplicate && carols.event.offset == first.event.offset + 1 && carols.event.type == "app.event")
            #expect(try await collect(scores, count: 1).events.map { $0.data["publishedBy"]?.stringValue } == ["carol"])

            // Refusals, each with its code; nothing is stored for them.
            #expect(await refusal { _ = try await alice.publish(to: "app:other", data: ["n": 3]) } == .permissionDenied)
            #expect(await refusal { _ = try await carol.publish(to: "user:bob", data: ["n": 3]) } == .permissionDenied)
            #expect(await refusal { _ = try await bob.publish(to: "app:scores", data: ["n": 3]) } == .permissionDenied)
            #expect(await refusal { _ = try await alice.sendRaw("stream.publish", args: ["stream": "app:scores", "data": [1, 2]]) } == .invalidParameterValue)
            #expect(await refusal { _ = try await alice.publish(to: "app:scores", type: String(repeating: "t", count: 65), data: ["n": 3]) } == .invalidParameterValue)
            #expect(await refusal { _ = try await alice.publish(to: "app:scores", data: ["pad": .string(String(repeating: "x", count: Limits.maxClientFrameBytes))]) } == .payloadTooLarge)
            #expect(await refusal { _ = try await alice.sendRaw("stream.publish", args: ["stream": "app:scores"]) } == .invalidParameterValue)

            // The connection went on: a later publication is stored and delivered next.
            let last = try await alice.publish(to: "app:scores", data: ["n": 4])
            #expect(last.event.offset == carols.event.offset + 1)
            #expect(try await collect(scores, count: 1).events.map { $0.data["n"]?.numberValue } == [4])
            let log = try await server.rest("GET", "/v1/streams/app:scores/events?after=0").1.arrayValue ?? []
            #expect(log.map { $0["data"]?["n"]?.numberValue } == [1, 2, 4])
        }
    }

    @Test("fan-outs that overlap, written a few connections at a time per event loop: 100 subscribers each receive 60 events from 4 concurrent publishers once and in offset order, and a subscriber's own command is answered meanwhile")
    func overlappingFanOuts() async throws {
        try await HeavyTests.run {
            try await withServer { server in
                // More subscribers on each event loop than one drain task takes (LoopDrainer.chunk).
                let subscribers = 100
                let followed = try await withThrowingTaskGroup(of: (GreenroomClient, StreamSubscription).self) { group in
                    for index in 0..<subscribers {
                        group.addTask {
                            let client = try await server.client("fan-\(index)", grants: ["app:fan"])
                            return (client, try await client.subscribe(to: "app:fan"))
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                // Four publishers at once, 15 events each: the fan-out of one event is still
                // being written when the next ones are queued behind it.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for publisher in 0..<4 {
                        group.addTask {
                            for index in 0..<15 {
                                let (status, answer) = try await server.rest("POST", "/v1/streams/app:fan/events",
                                                                             body: ["type": "n", "data": ["p": .number(Double(publisher)), "i": .number(Double(index))]])
                                #expect(status == 201, "\(answer)")
                            }
                        }
                    }
                    // A subscriber's command during the fan-outs is answered (its reply shares
                    // the connection's queue with the events).
                    group.addTask {
                        let client = followed[0].0
                        let me = try await client.currentUserController().currentUser()
                        #expect(me.id == client.currentUserId && me.id.hasPrefix("fan-"))
                    }
                    try await group.waitForAll()
                }
                for (client, subscription) in followed {
                    let events = try await collect(subscription, count: 60).events
                    #expect(events.map(\.offset) == Array(1...60), "\(client.currentUserId ?? "?") received \(events.map(\.offset))")
                    // Each publisher's events in the order it published them.
                    for publisher in 0..<4 {
                        let mine = events.filter { $0.data["p"]?.numberValue == Double(publisher) }.map { $0.data["i"]?.numberValue }
                        #expect(mine == (0..<15).map { Double($0) })
                    }
                }
                for (client, _) in followed { await client.disconnect() }
            }
        }
    }

    @Test("a publisher that follows its own stream has each event before the reply to its publish, and a chat sender each message's event before the send returns: a batch is acknowledged only once the event loops have queued its events")
    func eventBeforeReply() async throws {
        try await withServer { server in
            let alice = try await server.client("alice", grants: ["publish:app:echo", "app:echo"])
            let own = try await alice.subscribe(to: "app:echo")
            for index in 1...50 {
                let result = try await alice.publish(to: "app:echo", data: ["n": .number(Double(index))])
                #expect(own.position?.offset == result.event.offset, "publish \(index): its reply came before its event")
            }
            _ = try await alice.createChannel(id: "echo", name: "Echo", members: [])
            let channel = try await alice.subscribe(to: "channel:echo")
            let start = try #require(channel.position?.offset)
            let room = alice.channelController(for: "echo")
            for index in 1...20 {
                _ = try await room.sendMessage(text: "m\(index)")
                #expect(channel.position?.offset == start + UInt64(index), "message \(index): its send returned before its event")
            }
        }
    }
}
