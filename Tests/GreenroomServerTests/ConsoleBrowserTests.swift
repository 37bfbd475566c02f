import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The admin console at `/console`, driven in headless Chromium: it signs in with the API
/// key, lists and fixes what the app holds over the REST API, and what it changes reaches
/// connected clients. A screenshot of each page is written under `.build/console-screenshots`.
@Suite("Admin console in a real browser", .wholeRun)
struct ConsoleBrowserTests {
    static var screenshots: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/console-screenshots")
    }

    /// The script's text for `value` as a JavaScript literal.
    static func literal(_ value: String) throws -> String { try RawJSON.string(value).jsonString() }

    /// Opens the console of `server` in `browser` and signs in with its API key.
    static func signIn(_ browser: Browser, _ server: TestServer) async throws {
        try await browser.go("\(server.url.absoluteString)/console")
        try await eventually("the page loads") { try await browser.run("return !!window.console_").boolValue == true }
        try await browser.run("document.getElementById('key').value = \(try literal(server.apiKey)); document.getElementById('signin-button').click()")
        try await eventually("signed in") { try await browser.run("return window.console_.signedIn()").boolValue == true }
    }

    @Test("a wrong API key shows an error and no data; signed in, an operator finds a channel and deletes a message, which reaches a connected client as message.deleted; renames a user; follows an app stream; every page renders")
    func console() async throws {
        guard let programs = MediaPrograms.find(for: "the admin console's browser test", browsers: true) else { return }
        try await withServer { server in
            let alice = try await server.client("alice")
            let bob = try await server.client("bob")
            let channel = try await alice.createChannel(id: "ops-room", name: "Ops room", members: ["bob"])
            let room = alice.channelController(for: channel.id)
            var sent: [ChatMessage] = []
            for text in ["first", "second", "third"] { sent.append(try await room.sendMessage(text: text)) }
            let onBob = try await bob.subscribe(to: channel.id.stream, since: StreamPosition(offset: 0, epoch: nil))
            let params = LiveEvent.CreateParams()
            params.title = "Launch"
            params.userIdsForHost = ["alice"]
            _ = try await alice.createLiveEvent(config: params)
            // Carol's meeting is kept to the end: a `Meeting` let go stops rejoining after its
            // client reconnects, and a loaded machine's reconnect would then end the meeting
            // (its last participant gone after the grace period) before the console ends it.
            let (_, standup, carol) = try await server.joined("carol", meeting: "standup", as: "carol", mode: .SEND_AND_RECV)
            let erin = try await server.token("erin", grants: [VideoScope.create, VideoScope.read])
            let (created, ticket) = try await server.rest("POST", "/v1/videos", body: ["title": "Sunset"], key: erin)
            #expect(created == 201)
            let videoId = try #require(ticket["video"]?["id"]?.stringValue)

            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let browser = try await driver.open()
            try await browser.go("\(server.url.absoluteString)/console")
            try await eventually("the page loads") { try await browser.run("return !!window.console_").boolValue == true }

            // A wrong key: an error, the sign-in form, no data.
            try await browser.run("document.getElementById('key').value = 'grk_wrong'; document.getElementById('signin-button').click()")
            try await eventually("the wrong key is refused") {
                try await browser.run("return document.getElementById('error').textContent").stringValue?.contains("API key") == true
            }
            #expect(try await browser.run("return window.console_.signedIn()").boolValue == false)
            #expect(try await browser.run("return getComputedStyle(document.getElementById('tabs')).display").stringValue == "none")
            #expect(try await browser.run("return document.getElementById('view').children.length").numberValue == 0)
            #expect(try await browser.run("return sessionStorage.getItem('greenroom.apiKey')") == .nil)

            // The key: signed in, and never in the URL.
            try await browser.run("document.getElementById('key').value = \(try Self.literal(server.apiKey)); document.getElementById('signin-button').click()")
            try await eventually("signed in") { try await browser.run("return window.console_.signedIn()").boolValue == true }
            #expect(try await browser.run("return location.href").stringValue?.contains(server.apiKey) == false)
            #expect(try await browser.run("return getComputedStyle(document.getElementById('signin')).display").stringValue == "none")
            try await browser.run("window.console_.autoConfirm = true")

            // Find the channel, open it, delete the second message.
            try await browser.run("window.console_.show('channels')")
            try await eventually("the channels list") { try await browser.run("return !!document.getElementById('channels-search')").boolValue == true }
            try await browser.run("document.getElementById('channels-search').value = 'ops-room'; document.getElementById('channels-find').click()")
            try await eventually("the channel is found") {
                try await browser.run("return !!document.querySelector('tr[data-channel=\"ops-room\"] button.open')").boolValue == true
            }
            try await browser.run("document.querySelector('tr[data-channel=\"ops-room\"] button.open').click()")
            let target = sent[1].id
            try await eventually("its messages are listed") {
                try await browser.run("return document.querySelectorAll('tr[data-message]').length").numberValue == 3
            }
            #expect(try await browser.run("return document.querySelectorAll('tr[data-member]').length").numberValue == 2)
            try await browser.run("document.querySelector('tr[data-message=\(try Self.literal(target))] button.delete').click()")
            let (events, _) = try await collect(onBob, count: 4)
            let deleted = try #require(events.last)
            #expect(deleted.type == ChatEventType.messageDeleted && deleted.data["message"]?["id"]?.stringValue == target)
            try await eventually("the page shows it deleted") {
                try await browser.run("return document.querySelector('tr[data-message=\(try Self.literal(target))] td.text').textContent").stringValue == "(deleted)"
            }

            // Rename bob.
            try await browser.run("window.console_.show('users')")
            try await eventually("the users list") { try await browser.run("return !!document.querySelector('tr[data-user=\"bob\"] button.save')").boolValue == true }
            try await browser.run("document.querySelector('tr[data-user=\"bob\"] input.nickname').value = 'Bobby'; document.querySelector('tr[data-user=\"bob\"] button.save').click()")
            try await eventually("bob is renamed") { try await server.rest("GET", "/v1/users/bob").1["nickname"]?.stringValue == "Bobby" }

            // Every page renders; a screenshot of each.
            try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
            let expected = ["users": "tr[data-user=\"alice\"]", "channels": "tr[data-channel=\"ops-room\"]", "live": "tr[data-live] td.state",
                            "meetings": "tr[data-meeting=\"standup\"]", "videos": "tr[data-video]", "connections": "table td", "stream": "#stream-name"]
            for (view, selector) in expected.sorted(by: { $0.key < $1.key }) {
                try await browser.run("window.console_.show(\(try Self.literal(view)))")
                try await eventually("the \(view) page") { try await browser.run("return !!document.querySelector(\(try Self.literal(selector)))").boolValue == true }
                if view == "stream" {
                    #expect(try await server.rest("POST", "/v1/streams/app:ops/events", body: ["type": "deploy", "data": ["version": "1.2"]]).0 == 201)
                    try await browser.run("document.getElementById('stream-name').value = 'app:ops'; document.getElementById('stream-follow').click()")
                    try await eventually("the stream's event shows") {
                        try await browser.run("return document.getElementById('stream-log').textContent").stringValue?.contains("deploy") == true
                    }
                    #expect(try await server.rest("POST", "/v1/streams/app:ops/events", body: ["type": "rollback", "data": [:]]).0 == 201)
                    try await eventually("a new event shows as it comes") {
                        try await browser.run("return document.getElementById('stream-log').textContent").stringValue?.contains("rollback") == true
                    }
                }
                let png = try await browser.screenshot()
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 2_000, "\(view): \(png.count) bytes")
                try png.write(to: Self.screenshots.appendingPathComponent("\(view).png"))
            }
            #expect(try await browser.run("return document.getElementById('error').textContent").stringValue == "")

            // A video deleted from the console (the API key acts for the app's backend).
            try await browser.run("window.console_.show('videos')")
            try await eventually("the video's delete button") { try await browser.run("return !!document.querySelector('tr[data-video] button.delete')").boolValue == true }
            try await browser.run("document.querySelector('tr[data-video] button.delete').click()")
            try await eventually("the video is gone") { try await server.rest("GET", "/v1/videos/\(videoId)", key: erin).0 == 404 }

            // End the meeting from the console.
            try await browser.run("window.console_.show('meetings')")
            #expect(try await server.rest("GET", "/v1/meetings/standup").1["state"]?.stringValue == "active")
            try await eventually("the meeting's end button") { try await browser.run("return !!document.querySelector('tr[data-meeting=\"standup\"] button.end')").boolValue == true }
            try await browser.run("document.querySelector('tr[data-meeting=\"standup\"] button.end').click()")
            try await eventually("the meeting ended") { try await server.rest("GET", "/v1/meetings/standup").1["state"]?.stringValue == "ended" }
            try await carol.wait("carol left with the end") { $0.calls.contains("left") }
            #expect(standup.meetingState == .CLOSED)
            await browser.close()
        }
    }
}
