import Foundation
import Greenroom
import GreenroomServer
import Testing

@Suite("Streams: positions, replay and recovery", .wholeRun)
struct RecoveryTests {
    @Test("1,000 events while the server cuts the connection three times: all arrive, in order, once, recovered")
    func recoveryAcrossCuts() async throws {
        try await withServer { server in
            let client = try await server.client("alice", grants: ["app:ticker"])
            let states = client.connectionStates
            let subscription = try await client.subscribe(to: "app:ticker")
            let publisher = Task {
                for index in 1...1000 {
                    try await server.server.publish(stream: "app:ticker", type: "tick", data: ["n": .number(Double(index))])
                    if index % 250 == 0 && index < 1000 {
                        // Cut only a live connection, so that each cut is a real one.
                        try await eventually("alice is connected before cut \(index / 250)") {
                            client.connectionState == .connected && server.server.connectionCount == 1
                        }
                        #expect(server.server.disconnectClients(userId: "alice") == 1)
                    }
                }
            }
            let (events, recoveries) = try await collect(subscription, count: 1000, timeout: .seconds(90))
            try await publisher.value
            #expect(events.count == 1000)
            #expect(events.map(\.offset) == Array(1...1000).map(UInt64.init))
            #expect(events.map { Int($0.data["n"]?.numberValue ?? 0) } == Array(1...1000))
            #expect(Set(events.map(\.offset)).count == 1000)
            #expect(recoveries == [true, true, true])
            #expect(subscription.recovered)
            #expect(subscription.position == StreamPosition(offset: 1000, epoch: events[0].epoch))
            await client.disconnect()
            var seen: [ConnectionState] = []
            for await state in states {
                seen.append(state)
                if case .disconnected = state { break }
            }
            #expect(seen.filter { if case .reconnecting = $0 { true } else { false } }.count >= 3)
        }
    }

    @Test("a gap longer than the retention: recovered is false, and the client continues from the head")
    func retentionGap() async throws {
        try await withServer({ $0.retentionCount = 20 }) { server in
            // Through a position kept by the app (another process, say).
            for index in 1...5 { try await server.server.publish(stream: "app:feed", data: ["n": .number(Double(index))]) }
            let first = try await server.client("alice", grants: ["app:feed"])
            let sub = try await first.subscribe(to: "app:feed", since: StreamPosition(offset: 0, epoch: nil))
            #expect(sub.recovered)
            let (replayed, _) = try await collect(sub, count: 5)
            #expect(replayed.map(\.offset) == [1, 2, 3, 4, 5])
            let kept = try #require(sub.position)
            await first.disconnect()

            for index in 6...100 { try await server.server.publish(stream: "app:feed", data: ["n": .number(Double(index))]) }
            let second = try await server.client("alice", grants: ["app:feed"])
            let resumed = try await second.subscribe(to: "app:feed", since: kept)
            #expect(!resumed.recovered)
            try await server.server.publish(stream: "app:feed", data: ["n": 101])
            let (after, _) = try await collect(resumed, count: 1)
            #expect(after.map(\.offset) == [101])

            // Within the retention the same call recovers.
            let third = try await server.client("bob", grants: ["app:feed"])
            let recent = try await third.subscribe(to: "app:feed", since: StreamPosition(offset: 90, epoch: kept.epoch))
            #expect(recent.recovered)
            let (tail, _) = try await collect(recent, count: 11)
            #expect(tail.map(\.offset) == Array(91...101).map(UInt64.init))

            // A position from another epoch cannot be resumed.
            let fourth = try await server.client("carol", grants: ["app:feed"])
            let foreign = try await fourth.subscribe(to: "app:feed", since: StreamPosition(offset: 95, epoch: "0000beef"))
            #expect(!foreign.recovered)
            for client in [second, third, fourth] { await client.disconnect() }
        }
    }

    @Test("events older than the retention age are removed; resuming before them is not a recovery")
    func retentionAge() async throws {
        try await withServer({ $0.retentionAge = 1; $0.retentionSweepInterval = 0.2 }) { server in
            for index in 1...3 { try await server.server.publish(stream: "app:old", data: ["n": .number(Double(index))]) }
            try await eventually("the sweep removed them", timeout: .seconds(10)) {
                let (_, log) = try await server.rest("GET", "/v1/streams/app:old/events?after=0")
                return log.arrayValue?.isEmpty == true
            }
            let client = try await server.client("alice", grants: ["app:old"])
            let old = try await client.subscribe(to: "app:old", since: StreamPosition(offset: 1, epoch: nil))
            #expect(!old.recovered)
            try await server.server.publish(stream: "app:old", data: ["n": 4])
            let (events, _) = try await collect(old, count: 1)
            #expect(events.map(\.offset) == [4])
            await client.disconnect()
        }
    }

    @Test("the SDK reports an incomplete recovery after a reconnect")
    func sdkReportsIncompleteRecovery() async throws {
        try await withServer({ $0.retentionCount = 20 }) { server in
            let client = try await server.client("alice", grants: ["app:feed"]) {
                $0.initialReconnectDelay = .seconds(3)
                $0.maxReconnectDelay = .seconds(3)
            }
            let recorder = DelegateRecorder()
            client.delegate = recorder
            let sub = try await client.subscribe(to: "app:feed")
            try await server.server.publish(stream: "app:feed", data: ["n": 1])
            _ = try await collect(sub, count: 1)
            server.server.disconnectClients(userId: "alice")
            // The close is asked for, not done: until the client has seen it, events could
            // still reach it on the old connection.
            try await eventually("the client saw the cut") { client.connectionState != .connected }
            // While it waits to reconnect, more than the retention is published at once.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 2...80 {
                    group.addTask { try await server.server.publish(stream: "app:feed", data: ["n": .number(Double(index))]) }
                }
                try await group.waitForAll()
            }
            let (report, events) = try await withTimeout(.seconds(30), "the resubscription report") {
                var report: Bool?
                var events: [StreamEvent] = []
                for await update in sub.updates {
                    if case .resubscribed(let recovered) = update {
                        report = recovered
                        try await server.server.publish(stream: "app:feed", data: ["n": 81])
                    }
                    if case .event(let event) = update { events.append(event) }
                    if report != nil && events.contains(where: { $0.offset == 81 }) { break }
                }
                return (report, events)
            }
            #expect(report == false)
            #expect(!sub.recovered)
            try await eventually("the delegate heard of it") { await recorder.resubscriptions == ["app:feed": false] }
            #expect(await recorder.states.contains(.connected))
            #expect(await recorder.states.contains(.reconnecting(attempt: 1)))
            #expect(events.map(\.offset) == [81])
            await client.disconnect()
        }
    }

    @Test("presence: join, list, update, leave, and leaving on disconnect, each told to the stream")
    func presence() async throws {
        try await withServer { server in
            let watcher = try await server.client("watcher", grants: ["app:room"])
            let events = try await watcher.subscribe(to: "app:room")
            let guest = try await server.client("guest", grants: ["app:room"])
            let entry: PresenceEntry = try await guest.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:room", data: ["status": "here"]))
            let _: PresenceEntry = try await guest.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:room", data: ["status": "busy"]))
            let listed: [PresenceEntry] = try await watcher.send(StreamOperation.presenceList, args: PresenceListArgs(stream: "app:room"))
            #expect(listed.map(\.clientId) == [entry.clientId])
            #expect(listed.first?.data == ["status": "busy"])
            let _: EmptyResult = try await guest.send(StreamOperation.presenceLeave, args: PresenceStreamArgs(stream: "app:room"))
            do {
                let _: EmptyResult = try await guest.send(StreamOperation.presenceLeave, args: PresenceStreamArgs(stream: "app:room"))
                Issue.record("left twice")
            } catch let error as GreenroomError {
                #expect(error.is(.notFound))
            }
            let _: PresenceEntry = try await guest.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:room"))
            await guest.disconnect()
            let (seen, _) = try await collect(events, count: 5)
            #expect(seen.map(\.type) == ["presence.joined", "presence.updated", "presence.left", "presence.joined", "presence.left"])
            #expect(seen.map { $0.data["reason"]?.stringValue } == [nil, nil, "left", nil, "disconnected"])
            let empty: [PresenceEntry] = try await watcher.send(StreamOperation.presenceList, args: PresenceListArgs(stream: "app:room"))
            #expect(empty.isEmpty)

            let outsider = try await server.client("outsider")
            do {
                let _: PresenceEntry = try await outsider.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:room"))
                Issue.record("joined without a grant")
            } catch let error as GreenroomError {
                #expect(error.is(.permissionDenied))
            }
            await outsider.disconnect()
            await watcher.disconnect()
        }
    }

    @Test("app streams are denied without a grant; the backend publishes with idempotency keys")
    func appStreamsAndPublishing() async throws {
        try await withServer { server in
            let outsider = try await server.client("eve")
            do {
                _ = try await outsider.subscribe(to: "app:scores")
                Issue.record("subscribed without a grant")
            } catch let error as GreenroomError {
                #expect(error.is(.permissionDenied))
            }
            #expect(outsider.connectionState == .connected)
            let wildcard = try await server.client("walt", grants: ["app:*"])
            let fan = try await server.client("fran", grants: ["app:scores"])
            let a = try await wildcard.subscribe(to: "app:scores")
            let b = try await fan.subscribe(to: "app:scores")
            await #expect(throws: GreenroomError.self) { _ = try await fan.subscribe(to: "app:other") }

            let (first, event) = try await server.rest("POST", "/v1/streams/app:scores/events", body: ["type": "goal", "data": ["team": "home"], "idempotencyKey": "goal-1"])
            #expect(first == 201 && event["offset"]?.numberValue == 1)
            let (again, same) = try await server.rest("POST", "/v1/streams/app:scores/events", body: ["type": "goal", "data": ["team": "home"], "idempotencyKey": "goal-1"])
            #expect(again == 200 && same["offset"]?.numberValue == 1)
            let (_, second) = try await server.rest("POST", "/v1/streams/app:scores/events", body: ["data": ["team": "away"]])
            #expect(second["offset"]?.numberValue == 2 && second["type"]?.stringValue == "app.event")
            let (private1, _) = try await server.rest("POST", "/v1/streams/user:fran/events", body: ["type": "dm", "data": "hi"])
            #expect(private1 == 201)
            let (badStream, _) = try await server.rest("POST", "/v1/streams/channel:x/events", body: ["data": 1])
            #expect(badStream == 400)
            let (noKey, _) = try await server.rest("POST", "/v1/streams/app:scores/events", body: ["data": 1], key: "")
            #expect(noKey == 401)

            for sub in [a, b] {
                let (events, _) = try await collect(sub, count: 2)
                #expect(events.map(\.offset) == [1, 2])
                #expect(events[0].type == "goal" && events[0].data["team"]?.stringValue == "home")
            }
            let (log, stored) = try await server.rest("GET", "/v1/streams/app:scores/events?after=0")
            #expect(log == 200 && stored.arrayValue?.count == 2)
            for client in [outsider, wildcard, fan] { await client.disconnect() }
        }
    }
}

/// Records what a client's delegate is told.
@MainActor
final class DelegateRecorder: GreenroomClientDelegate {
    var states: [ConnectionState] = []
    var resubscriptions: [String: Bool] = [:]

    func client(_ client: GreenroomClient, didChangeConnectionState state: ConnectionState) {
        states.append(state)
    }

    func client(_ client: GreenroomClient, didResubscribe stream: String, recovered: Bool) {
        resubscriptions[stream] = recovered
    }
}
