import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The SDK's media signalling (``MediaSession``) against a real Janus, with a real browser's
/// WebRTC behind its ``MediaEngine``, beside a demo-page participant.
@Suite("Media through the SDK", .serialized, .wholeRun)
struct MediaSDKTests {
    /// Frames the engine's page decoded from `participantId`'s feed.
    func frames(_ engine: BrowserEngine, _ media: MediaSession, from participantId: String) async throws -> Double {
        let decoded = try await engine.framesDecoded()
        let tracks = await media.tracks
        let feeds = await media.feeds
        return decoded.filter { mid, _ in tracks[mid].flatMap { feeds[$0.feedId] }?.participantId == participantId }.values.reduce(0, +)
    }

    @Test("a meeting with an attached MediaEngine receives the host, goes on stage when its mode changes (the host decodes it) and off again; the meeting's end closes the engine's connections")
    func attachedEngine() async throws {
        guard let programs = MediaPrograms.find(for: "the SDK media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "sdk", participant: "host", mode: "SEND_AND_RECV"))
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)

            let (client, meeting, _) = try await server.joined("sam", meeting: "sdk", as: "sam", mode: .RECV_ONLY, mic: true, webcam: true)
            let media = await meeting.attachMedia(engine)
            try await eventually("the SDK's engine decodes the host", timeout: .seconds(60)) {
                try await frames(engine, media, from: "host") > 10
            }
            #expect(await media.isPublishing == false)
            // The seeds' `participant.streams`: the host's tracks as received; none sent.
            let hostParticipant = try #require(meeting.participants.first { $0.id == "host" })
            #expect(Set(await hostParticipant.streams().values.map(\.kind)) == [.audio, .video])
            #expect(await meeting.localParticipant.streams().isEmpty)

            await meeting.changeMode(.SEND_AND_RECV)
            try await host.waitForMedia(from: "sam", what: "the host decodes the participant the SDK put on stage")
            let feed = try #require(await media.localFeed)
            #expect(Set(await meeting.localParticipant.streams().values.map(\.kind)) == [.audio, .video])
            #expect(try await server.publishersOnSFU("meeting:sdk").contains(feed.feedId))

            await meeting.changeMode(.RECV_ONLY)
            try await eventually("its feed is gone from Janus") { try await !server.publishersOnSFU("meeting:sdk").contains(feed.feedId) }
            try await eventually("the SDK stopped publishing") { await media.isPublishing == false }
            try await eventually("the host stops receiving it") { try await host.state()["subscribed"]?[String(feed.feedId)] == nil }
            #expect(try await frames(engine, media, from: "host") > 10)
            await media.settled()
            #expect(await media.lastError == nil)
            #expect(client.currentUserId == "sam")

            // The meeting ends: the attached session closes the engine's connections by itself.
            #expect(try await page.run("return window.sub != null").boolValue == true)
            let (_, moderator, _) = try await server.joined("boss", meeting: "sdk", as: "boss", mode: .SIGNALLING_ONLY, grants: [MeetingGrant.allowMod])
            try await moderator.end()
            try await eventually("the SDK closed its engine's receiving connection") {
                try await page.run("return window.sub == null && window.pub == null").boolValue == true
            }
            let (tracks, publishing) = (await media.tracks, await media.isPublishing)
            #expect(meeting.media == nil && tracks.isEmpty && !publishing)
            for browser in [host, page] { await browser.close() }
        }
    }

    @Test("after its WebSocket is cut, the SDK joins again and publishes again by itself: the host decodes it again")
    func republishAfterReconnect() async throws {
        guard let programs = MediaPrograms.find(for: "the SDK media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "again", participant: "host", mode: "SEND_AND_RECV"))
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (_, meeting, _) = try await server.joined("sam", meeting: "again", as: "sam", mode: .SEND_AND_RECV, mic: true, webcam: true)
            let media = await meeting.attachMedia(engine)
            try await host.waitForMedia(from: "sam", what: "the host decodes the SDK participant")
            let before = try #require(await media.localFeed)

            #expect(server.server.disconnectClients(userId: "sam") == 1)
            try await eventually("the SDK publishes a new feed", timeout: .seconds(60)) {
                await media.localFeed.map { $0.feedId != before.feedId } ?? false
            }
            try await eventually("Janus has the new feed and not the old one") {
                let feeds = try await server.publishersOnSFU("meeting:again")
                return await feeds.contains(media.localFeed?.feedId ?? 0) && !feeds.contains(before.feedId)
            }
            try await host.waitForMedia(from: "sam", what: "the host decodes the SDK participant again")
            try await eventually("the SDK receives the host again", timeout: .seconds(60)) {
                try await frames(engine, media, from: "host") > 10
            }
            for browser in [host, page] { await browser.close() }
        }
    }

    @Test("seed 000: a host's LiveEvent with an attached MediaEngine publishes once the event is ready; a participant's browser decodes it; the host's connection is rated for both; exiting stops it")
    func liveEventHost() async throws {
        guard let programs = MediaPrograms.find(for: "the SDK media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let client = try await server.client("hostuser")
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = ["hostuser"]
            let live = try await client.createLiveEvent(config: params)
            try await live.enterAsHost()
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let media = await live.attachMedia(BrowserEngine(browser: page))
            await media.settled()
            #expect(await media.isPublishing == false)   // created: not yet

            try await live.setEventReady()
            try await eventually("the host publishes once the event is ready") { await media.isPublishing }
            let feed = try #require(await media.localFeed)
            let viewer = try await driver.open()
            let token = try await server.token("pat")
            try await viewer.go("\(server.url.absoluteString)/demo/?join=1&token=\(token)&live=\(live.liveEventId)&role=participant&user=pat")
            try await viewer.waitForMedia(from: "hostuser", what: "a participant decodes the host")
            // The host's engine reports its statistics: its connection is rated, for itself and the participant.
            try await eventually("the host's LiveEvent hears its own connection rated", timeout: .seconds(30)) {
                live.connectionQuality(of: "hostuser").map { [.excellent, .good].contains($0) } ?? false
            }
            try await eventually("the participant's page hears the host's rating", timeout: .seconds(20)) {
                try await viewer.run("return window.demo.state().qualities['hostuser'] || null").stringValue == live.connectionQuality(of: "hostuser")?.rawValue
            }

            try await live.exitAsHost()
            try await eventually("its feed is gone from Janus") { try await !server.publishersOnSFU("live:\(live.liveEventId)").contains(feed.feedId) }
            #expect(await media.isPublishing == false)
            for browser in [page, viewer] { await browser.close() }
        }
    }

    @Test("muting through the SDK stops sending, not only the flag: the microphone's packets stop and flow again; a camera joined off is never sent, not even after publishing again")
    func muting() async throws {
        guard let programs = MediaPrograms.find(for: "the SDK media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (watcher, _, _) = try await server.joined("wes", meeting: "mute", as: "wes", mode: .RECV_ONLY)
            let (_, meeting, _) = try await server.joined("sam", meeting: "mute", as: "sam", mode: .SEND_AND_RECV, mic: true, webcam: false)
            let media = await meeting.attachMedia(engine)
            func sent(_ kind: String) async throws -> Double { try await engine.outbound()[kind]?["packetsSent"] ?? 0 }
            func samOnServer() async throws -> MeetingParticipant? {
                try await watcher.send(MeetingOperation.get, args: MeetingRef(meetingId: "mute")).participants.first { $0.participantId == "sam" }
            }
            try await eventually("the SDK's microphone is sent", timeout: .seconds(60)) { try await sent("audio") > 50 }
            #expect(await media.muted == [.video])
            #expect(await meeting.localParticipant.streams().values.map(\.kind) == [.audio])

            try await meeting.muteMic()
            await media.settled()
            // Packets already on their way are counted for a moment; then none are sent.
            var stopped = try await sent("audio")
            try await eventually("a muted microphone sends nothing for two seconds", timeout: .seconds(15)) {
                try await Task.sleep(for: .seconds(2))
                let now = try await sent("audio")
                defer { stopped = now }
                return now == stopped
            }
            #expect(try await samOnServer()?.micOn == false)
            #expect(await meeting.localParticipant.streams().isEmpty)
            try await meeting.unmuteMic()
            try await eventually("the microphone is sent again") { try await sent("audio") > stopped + 20 }
            #expect(try await samOnServer()?.micOn == true)

            // Publishing again (after a reconnect) keeps the camera unsent.
            let before = try #require(await media.localFeed)
            #expect(server.server.disconnectClients(userId: "sam") == 1)
            try await eventually("the SDK publishes a new feed", timeout: .seconds(60)) {
                await media.localFeed.map { $0.feedId != before.feedId } ?? false
            }
            try await eventually("the new feed's microphone is sent", timeout: .seconds(30)) { try await sent("audio") > 50 }
            #expect(try await sent("video") == 0, "a camera joined off was sent")
            #expect(try await samOnServer()?.webcamOn == false)
            await page.close()
        }
    }

    @Test("Janus killed mid-call: the SDK publishes again by itself once it is back; the host decodes it again and it receives the host again")
    func republishAfterJanusRestart() async throws {
        guard let programs = MediaPrograms.find(for: "the SDK media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "lost", participant: "host", mode: "SEND_AND_RECV"))
            let page = try await driver.open()
            try await page.go(server.url.absoluteString + "/demo/")
            let engine = BrowserEngine(browser: page)
            let (_, meeting, _) = try await server.joined("sam", meeting: "lost", as: "sam", mode: .SEND_AND_RECV, mic: true, webcam: true)
            let media = await meeting.attachMedia(engine)
            try await host.waitForMedia(from: "sam", what: "the host decodes the SDK participant")
            try await eventually("the SDK receives the host", timeout: .seconds(60)) { try await frames(engine, media, from: "host") > 10 }
            let before = try #require(await media.localFeed)
            let hostFeed = try #require(await media.feeds.values.first { $0.participantId == "host" })

            let janus = try #require(server.server.core.mediaBackend.process)
            let pid = try #require(janus.pid)
            #expect(kill(pid, SIGKILL) == 0)
            try await eventually("Janus runs again", timeout: .seconds(30)) { janus.pid != nil && janus.pid != pid }
            try await eventually("the SDK publishes a new feed by itself", timeout: .seconds(60)) {
                await media.localFeed.map { $0.feedId != before.feedId } ?? false
            }
            try await eventually("Janus has the SDK's new feed", timeout: .seconds(30)) {
                try await server.publishersOnSFU("meeting:lost").contains(await media.localFeed?.feedId ?? 0)
            }
            try await host.waitForMedia(from: "sam", what: "the host decodes the SDK participant again")
            try await eventually("the SDK receives the host again", timeout: .seconds(60)) { try await frames(engine, media, from: "host") > 10 }
            #expect(await media.isPublishing)

            // Each feed of the room is announced lost with its own event. One that names a feed
            // already dropped (here the host's old feed, announced once more) changes nothing:
            // no second publish, which would renegotiate the new feed with a fresh connection's
            // offer. A feed of the SDK's own participant, announced after it, marks when the SDK
            // has read both.
            await media.settled()
            let (answers, feed) = (try await engine.publishAnswerSessions(), await media.localFeed)
            let marker = MediaFeed(feedId: MediaPlane.randomId(), userId: "sam", participantId: before.participantId, clientId: "marker", tracks: [])
            try await server.server.core.events.transact { transaction in
                _ = try await transaction.append([
                    try MediaPlane.event("meeting:lost", MediaEvent(type: MediaEventType.unpublished, feed: hostFeed, reason: "mediaServerLost")),
                    try MediaPlane.event("meeting:lost", MediaEvent(type: MediaEventType.published, feed: marker)),
                ])
            }
            try await eventually("the SDK reads the marker feed") { await media.feeds[marker.feedId] != nil }
            await media.settled()
            #expect(try await engine.publishAnswerSessions() == answers)
            #expect(await media.localFeed == feed)
            #expect(await media.isPublishing)
            for browser in [host, page] { await browser.close() }
        }
    }
}
