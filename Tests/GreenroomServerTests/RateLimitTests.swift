import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

/// Each user's budget by operation class: one abusive client gets `rateLimited` with a
/// wait, and nobody else notices.
@Suite("Rate limits", .wholeRun)
struct RateLimitTests {
    @Test("a client sending at ten times its rate gets rateLimited with retryAfterMs and keeps its connection; a client beside it gets everything through")
    func abusiveClientIsLimited() async throws {
        try await withServer({ $0.rateLimits.writes = Rate(perSecond: 1, burst: 10) }) { server in
            let mallory = try await server.client("mallory") { $0.retriesRateLimitedCommands = false }
            let bob = try await server.client("bob")
            _ = try await mallory.createChannel(id: "noisy", name: "Noisy", members: ["bob"], isPublic: true)
            let noisy = mallory.channelController(for: "noisy")
            let polite = bob.channelController(for: "noisy")
            var refused: [GreenroomError] = []
            var accepted = 0
            // How long until the budget has a token for the next send: a refusal says; after
            // an accepted send that may have taken the last token, one interval (1 s).
            var untilNextToken = 1_000
            let start = ContinuousClock.now
            for index in 0..<100 {
                do {
                    _ = try await noisy.sendMessage(text: "spam \(index)")
                    accepted += 1
                    untilNextToken = 1_000
                } catch let error as GreenroomError {
                    refused.append(error)
                    untilNextToken = error.retryAfterMs ?? 1_000
                }
                if index % 10 == 0 { _ = try await polite.sendMessage(text: "hello \(index)") }
            }
            // The burst, and one a second after it: however slowly this machine ran them.
            let elapsed = (ContinuousClock.now - start).components.seconds
            #expect(accepted >= 9 && accepted <= 11 + Int(elapsed), "\(accepted) accepted in \(elapsed) s")
            #expect(!refused.isEmpty && refused.allSatisfy { $0.is(.rateLimited) && ($0.retryAfterMs ?? 0) > 0 }, "\(refused.prefix(3))")
            // The connection survives, and after the wait the next one goes through. (The
            // sends are slowed to the budget, so the last of them may have been accepted.)
            try await Task.sleep(for: .milliseconds(untilNextToken + 150))
            _ = try await noisy.sendMessage(text: "after the wait")
            #expect(mallory.connectionState == .connected)
            // Reads have a budget of their own.
            #expect(try await mallory.channel("noisy").name == "Noisy")
        }
    }

    @Test("REST with a client token counts too: past the budget 429 with Retry-After and retryAfterMs")
    func restIsLimited() async throws {
        // A token a hundred seconds: none comes back within the test, however slow the machine.
        try await withServer({ $0.rateLimits.writes = Rate(perSecond: 0.01, burst: 3) }) { server in
            let token = try await server.token("carol", grants: [VideoScope.create, VideoScope.edit])
            // Creating a video counts against uploads; changing it against writes.
            let (created, ticket) = try await server.rest("POST", "/v1/videos", body: ["title": "clip"], key: token)
            let id = try #require(ticket["video"]?["id"]?.stringValue, "\(created) \(ticket)")
            var statuses: [Int] = []
            var last: RawJSON = .nil
            for index in 0..<6 {
                let (status, body) = try await server.rest("PATCH", "/v1/videos/\(id)", body: ["title": .string("clip \(index)")], key: token)
                statuses.append(status)
                last = body
            }
            #expect(statuses.prefix(3).allSatisfy { $0 == 200 } && statuses.last == 429, "\(statuses)")
            #expect(last["error"]?["name"]?.stringValue == "rateLimited" && (last["error"]?["retryAfterMs"]?.numberValue ?? 0) > 0, "\(last)")
            // The app's backend has no budget.
            for _ in 0..<6 { #expect(try await server.rest("GET", "/v1/users").0 == 200) }
        }
    }

    @Test("after a reconnect the SDK resubscribes past its subscription budget by waiting as the server says: no subscription is dropped")
    func sdkHonoursRetryAfter() async throws {
        try await withServer({ $0.rateLimits.subscribes = Rate(perSecond: 4, burst: 3) }) { server in
            let streams = (1...6).map { "app:s\($0)" }
            let client = try await server.client("dana", grants: streams) { $0.initialReconnectDelay = .milliseconds(50) }
            var subscriptions: [StreamSubscription] = []
            for stream in streams {
                while true {
                    do {
                        subscriptions.append(try await client.subscribe(to: stream))
                        break
                    } catch let error as GreenroomError where error.is(.rateLimited) {
                        try await Task.sleep(for: .milliseconds(error.retryAfterMs ?? 100))
                    }
                }
            }
            server.server.disconnectClients(userId: "dana")
            try await eventually("reconnected") { client.connectionState != .connected }
            try await eventually("every subscription resumed") { client.connectionState == .connected }
            for (index, stream) in streams.enumerated() {
                try await server.server.publish(stream: stream, data: ["n": .number(Double(index))])
            }
            for subscription in subscriptions {
                let (events, _) = try await collect(subscription, count: 1)
                #expect(events.count == 1, "\(subscription.stream)")
            }
        }
    }
}
