import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension ConsoleBrowserTests {
    @Test("the review queue: members report messages and a user; the backend hears report.created; in the console a moderator sees a message in context, dismisses one report, deletes a message (a member sees message.deleted) and mutes a sender (who is refused userMuted); resolved reports leave the queue")
    func reviewQueue() async throws {
        guard let programs = MediaPrograms.find(for: "the console's review queue in a browser", browsers: true) else { return }
        try await withServer({ $0.webhooks.allowPrivateAddresses = true }) { server in
            let receiver = WebhookReceiver()
            let port = try await receiver.start()
            defer { Task { await receiver.stop() } }
            let (hooked, hook) = try await server.rest("POST", "/v1/webhooks", body: ["url": .string("http://127.0.0.1:\(port)/reports"), "events": ["report.*"]])
            #expect(hooked == 201)
            receiver.secret.withLock { $0 = (try? hook.decode(as: WebhookEndpoint.self).secret) ?? "" }

            let users = try await server.clients(["alice", "bob", "carol", "eve"])
            let (alice, bob, carol, eve) = (try #require(users["alice"]), try #require(users["bob"]), try #require(users["carol"]), try #require(users["eve"]))
            _ = try await alice.createChannel(id: "town-hall", name: "Town hall", members: ["bob", "carol", "eve"])
            var sent: [String: ChatMessage] = [:]
            for (client, text) in [(alice, "welcome"), (bob, "buy cheap watches"), (carol, "hello"), (eve, "you are all idiots"), (bob, "sorry, wrong room")] {
                sent[text] = try await client.channelController(for: "town-hall").sendMessage(text: text)
            }
            let carolRoom = carol.channelController(for: "town-hall")
            let spam = try await carolRoom.reportMessage(messageId: try #require(sent["buy cheap watches"]).id, reason: "spam")
            #expect(try await carolRoom.reportMessage(messageId: try #require(sent["buy cheap watches"]).id, reason: "again") == spam, "one open report per message")
            let insult = try await alice.channelController(for: "town-hall").reportMessage(messageId: try #require(sent["you are all idiots"]).id, reason: "abuse")
            let harmless = try await alice.channelController(for: "town-hall").reportMessage(messageId: try #require(sent["sorry, wrong room"]).id)
            let user = try await carol.reportUser(userId: "eve", reason: "harasses me")
            #expect(user.kind == .user && user.userId == "eve" && spam.userId == "bob" && spam.state == .open)
            #expect(await refusal { _ = try await carolRoom.reportMessage(messageId: try #require(sent["hello"]).id) } == .invalidParameterValue,
                    "a user cannot report its own message")
            #expect(await refusal { _ = try await carol.subscribe(to: "moderation") } == .invalidParameterValue, "no client follows the queue's stream")
            try await eventually("the backend heard of each report") { receiver.handled.filter { $0.type == "report.created" }.count == 4 }
            let heard = receiver.handled.first { $0.data["id"]?.stringValue == spam.id }
            #expect(heard?.data["messageId"]?.stringValue == spam.messageId && heard?.data["reason"] == nil && heard?.data["reporterId"] == nil,
                    "the webhook names the report, not the reporter or the reason")
            let onBob = try await bob.subscribe(to: ChannelId("town-hall").stream, since: StreamPosition(offset: 0, epoch: nil))

            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let browser = try await driver.open()
            try await Self.signIn(browser, server)
            try await browser.run("window.console_.autoConfirm = true")

            func review(_ report: Report) async throws {
                try await browser.run("window.console_.show('reports')")
                let row = "tr[data-report=\(try Self.literal(report.id))] button.review"
                try await eventually("\(report.id) is in the queue") { try await browser.run("return !!document.querySelector(\(try Self.literal(row)))").boolValue == true }
                try await browser.run("document.querySelector(\(try Self.literal(row))).click()")
                try await eventually("\(report.id) opens") { try await browser.run("return !!document.getElementById('report-actions')").boolValue == true }
            }
            func choose(_ action: ReportAction) async throws {
                try await browser.run("document.querySelector('#report-actions button[data-action=\(action.rawValue)]').click()")
                try await eventually("back to the queue") { try await browser.run("return !!document.querySelector('tr[data-report]') || !!document.querySelector('td.muted')").boolValue == true }
            }
            // The spam: seen in context (the reported row marked among its neighbours), then deleted.
            try await review(spam)
            #expect(try await browser.run("return document.querySelectorAll('tr[data-message]').length").numberValue == 5)
            #expect(try await browser.run("return document.querySelector('tr.reported td.text').textContent").stringValue == "buy cheap watches")
            try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
            try (try await browser.screenshot()).write(to: Self.screenshots.appendingPathComponent("report.png"))
            try await choose(.deleteMessage)
            let deleted = try await collect(onBob, count: 6).events.last
            #expect(deleted?.type == ChatEventType.messageDeleted && deleted?.data["message"]?["id"]?.stringValue == spam.messageId)

            // The insult: its sender muted for an hour.
            try await review(insult)
            try await browser.run("document.getElementById('report-seconds').value = '3600'")
            try await choose(.muteInChannel)
            try await eventually("eve is muted") {
                await refusal { _ = try await eve.channelController(for: "town-hall").sendMessage(text: "again") } == .userMuted
            }

            // The harmless one: dismissed.
            try await review(harmless)
            try await choose(.dismiss)

            try await eventually("three reports are resolved") {
                try await server.rest("GET", "/v1/moderation/reports?state=resolved").1["items"]?.arrayValue?.count == 3
            }
            let resolved = try await server.rest("GET", "/v1/moderation/reports?state=resolved").1.decode(as: Page<Report>.self).items
            #expect(Dictionary(uniqueKeysWithValues: resolved.map { ($0.id, $0.resolution) })
                    == [spam.id: .deleteMessage, insult.id: .muteInChannel, harmless.id: .dismiss])
            #expect(try await server.rest("GET", "/v1/moderation/reports").1.decode(as: Page<Report>.self).items.map(\.id) == [user.id])
            try await eventually("the backend heard of each resolution") { receiver.handled.filter { $0.type == "report.resolved" }.count == 3 }
            #expect(try await server.rest("POST", "/v1/moderation/reports/\(harmless.id)/resolve", body: ["action": "dismiss"]).0 == 400,
                    "a resolved report is not resolved twice")
            #expect(try await browser.run("return document.getElementById('error').textContent").stringValue == "")
            await browser.close()
        }
    }
}
