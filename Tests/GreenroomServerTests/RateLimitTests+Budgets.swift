import Foundation
import Greenroom
import GreenroomProtocol
import GreenroomServer
import Testing

extension RateLimitTests {
    /// How many `message.send`s the server refused with `rateLimited`, from `/metrics`.
    static func refusedSends(_ server: TestServer) async throws -> Int {
        let text = try await server.rest("GET", "/metrics").1.stringValue ?? ""
        let prefix = #"op="message.send",outcome="rateLimited"} "#
        guard let line = text.split(separator: "\n").first(where: { $0.contains(prefix) }),
              let count = line.split(separator: " ").last.flatMap({ Double($0) }) else { return 0 }
        return Int(count)
    }

    @Test("each connection has its own budget beside its user's: one connection past it is refused while another of the same user goes on")
    func connectionBudget() async throws {
        try await withServer({ $0.connectionRateLimits.writes = Rate(perSecond: 0.01, burst: 3) }) { server in
            let first = try await server.client("ivy") { $0.retriesRateLimitedCommands = false }
            let second = try await server.client("ivy") { $0.retriesRateLimitedCommands = false }
            _ = try await first.createChannel(id: "two-tabs", name: "Two tabs", isPublic: true)
            let one = first.channelController(for: "two-tabs")
            var refusal: GreenroomError?
            for index in 0..<6 {
                do {
                    _ = try await one.sendMessage(text: "first \(index)")
                } catch let error as GreenroomError {
                    refusal = error
                    break
                }
            }
            #expect(refusal?.is(.rateLimited) == true && (refusal?.retryAfterMs ?? 0) > 0, "\(String(describing: refusal))")
            #expect(refusal?.message.contains("connection") == true, "\(String(describing: refusal))")
            // The user's own budget (the default) is far from spent: its other connection sends.
            let other = second.channelController(for: "two-tabs")
            for index in 0..<3 { _ = try await other.sendMessage(text: "second \(index)") }
        }
    }

    @Test("a token's rate grant sets its budget: rate:writes=off sends past the node's budget, rate:writes=PER/BURST is held to its own")
    func tokenSetsItsBudget() async throws {
        try await withServer({ $0.rateLimits.writes = Rate(perSecond: 0.01, burst: 2) }) { server in
            let importer = try await server.client("importer", grants: ["rate:writes=0.01/5"]) { $0.retriesRateLimitedCommands = false }
            let person = try await server.client("person") { $0.retriesRateLimitedCommands = false }
            let bot = try await server.client("bot", grants: ["rate:writes=off"]) { $0.retriesRateLimitedCommands = false }
            _ = try await bot.createChannel(id: "feed", name: "Feed", members: ["importer", "person"], isPublic: true)
            let feed = bot.channelController(for: "feed")
            for index in 0..<20 { _ = try await feed.sendMessage(text: "bot \(index)") }
            // Its budget over REST too.
            let botToken = try await server.token("bot", grants: ["rate:writes=off", VideoScope.create, VideoScope.edit])
            let (created, ticket) = try await server.rest("POST", "/v1/videos", body: ["title": "clip"], key: botToken)
            let video = try #require(ticket["video"]?["id"]?.stringValue, "\(created) \(ticket)")
            for index in 0..<5 {
                let (status, body) = try await server.rest("PATCH", "/v1/videos/\(video)", body: ["title": .string("clip \(index)")], key: botToken)
                #expect(status == 200, "\(status) \(body)")
            }
            for (client, burst) in [(importer, 5), (person, 2)] {
                let controller = client.channelController(for: "feed")
                var accepted = 0
                var refusal: GreenroomError?
                while refusal == nil, accepted < 10 {
                    do {
                        _ = try await controller.sendMessage(text: "\(accepted)")
                        accepted += 1
                    } catch let error as GreenroomError {
                        refusal = error
                    }
                }
                #expect(accepted == burst && refusal?.is(.rateLimited) == true, "\(accepted) \(String(describing: refusal))")
            }
            // A grant that does not parse changes nothing.
            let odd = try await server.client("odd", grants: ["rate:writes=lots", "rate:everything=off"]) { $0.retriesRateLimitedCommands = false }
            _ = try await odd.createChannel(id: "odd", name: "Odd", isPublic: true)
            _ = try await odd.channelController(for: "odd").sendMessage(text: "one")
            await #expect(throws: GreenroomError.self) { _ = try await odd.channelController(for: "odd").sendMessage(text: "two") }
        }
    }

    @Test("the SDK sends a command refused for its rate again after the server's retryAfterMs: a burst past the budget all goes through, paced")
    func sdkRetriesRateLimitedCommands() async throws {
        try await withServer({ $0.rateLimits.writes = Rate(perSecond: 4, burst: 1) }) { server in
            let client = try await server.client("pat")
            _ = try await client.createChannel(id: "paced", name: "Paced", isPublic: true)
            let channel = client.channelController(for: "paced")
            // Eight at once against an empty bucket: most are refused at first, however fast
            // or slow the machine, and each goes through once the client has waited.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 { group.addTask { _ = try await channel.sendMessage(text: "m\(index)") } }
                try await group.waitForAll()
            }
            let page = try await client.channelController(for: "paced").loadPreviousMessages(before: nil, limit: 50)
            #expect(Set(page.items.compactMap(\.text)) == Set((0..<8).map { "m\($0)" }) && page.items.count == 8)
            // They went through because the client waited, not because nothing was refused.
            #expect(try await Self.refusedSends(server) > 0)
        }
    }

    @Test("budgets from the environment: GREENROOM_RATE_<CLASS> for users, GREENROOM_RATE_<CLASS>_PER_CONNECTION for connections, off for none")
    func budgetsFromEnvironment() throws {
        let config = try ServerConfiguration.fromEnvironment([
            "GREENROOM_RATE_WRITES": "50/80", "GREENROOM_RATE_WRITES_PER_CONNECTION": "10/20", "GREENROOM_RATE_READS_PER_CONNECTION": "off",
        ])
        #expect(config.rateLimits.writes == Rate(perSecond: 50, burst: 80))
        #expect(config.connectionRateLimits.writes == .some(Rate(perSecond: 10, burst: 20)))
        #expect(config.connectionRateLimits.reads == .some(nil) && config.rateLimits.reads == RateLimits().reads)
        // Unset, a connection has its user's budget, whatever that is.
        #expect(config.connectionRateLimits.presence == nil)
        #expect(config.connectionRateLimits.over(config.rateLimits).writes == Rate(perSecond: 10, burst: 20))
        #expect(config.connectionRateLimits.over(config.rateLimits).presence == config.rateLimits.presence)
        let off = try ServerConfiguration.fromEnvironment(["GREENROOM_RATE_WRITES": "off"])
        #expect(off.connectionRateLimits.over(off.rateLimits).writes == nil)
        #expect(throws: GreenroomServerError.self) { try ServerConfiguration.fromEnvironment(["GREENROOM_RATE_MEDIA_PER_CONNECTION": "fast"]) }
    }

    @Test("a command its user's budget refuses takes nothing from its connection's: once the user has tokens again, that connection sends at once")
    func refusalTakesNothing() async throws {
        // Budgets that do not refill within the test: a token every hundred seconds.
        try await withServer({
            $0.rateLimits.writes = Rate(perSecond: 0.01, burst: 2)
            $0.connectionRateLimits.writes = .some(Rate(perSecond: 0.01, burst: 3))
        }) { server in
            let first = try await server.client("kim")
            let second = try await server.client("kim") { $0.retriesRateLimitedCommands = false }
            let owner = try await server.client("owner")
            _ = try await owner.createChannel(id: "quota", name: "Quota", members: ["kim"], isPublic: true)
            // The first connection spends the user's two tokens.
            for index in 0..<2 { _ = try await first.channelController(for: "quota").sendMessage(text: "first \(index)") }
            // The second is refused by its user's budget, twice, with tokens on its own.
            for index in 0..<2 {
                do {
                    _ = try await second.channelController(for: "quota").sendMessage(text: "refused \(index)")
                    Issue.record("a send past the user's budget went through")
                } catch let error as GreenroomError {
                    #expect(error.is(.rateLimited) && error.message.contains("for kim"), "\(error)")
                }
            }
            // A token whose grant refills the user's bucket at once (to three, one of them taken).
            let refill = try await server.client("kim", grants: ["rate:writes=1000000/3"])
            _ = try await refill.channelController(for: "quota").sendMessage(text: "refill")
            // The second connection's own three tokens are all there: two sends go through.
            for index in 0..<2 { _ = try await second.channelController(for: "quota").sendMessage(text: "after \(index)") }
        }
    }
}
