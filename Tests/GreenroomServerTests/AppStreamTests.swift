import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

@Suite("App streams: the backend publishes over REST", .timeLimit(.minutes(2)))
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
}
