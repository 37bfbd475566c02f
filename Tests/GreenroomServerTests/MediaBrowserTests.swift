import Foundation
import Logging
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Audio and video end to end: headless Chromiums with fake cameras and microphones on the
/// demo page, a real Janus run by the server, Greenroom relaying the signalling.
@Suite("Media in real browsers", .serialized, .wholeRun)
struct MediaBrowserTests {
    @Test("seed 001 on stage: two RECV_ONLY viewers decode the host; one invited over HOSTREQUESTED publishes to both; back in RECV_ONLY its publisher is gone")
    func stage() async throws {
        guard let programs = MediaPrograms.find(for: "the browser media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            let first = try await driver.open()
            let second = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "stage", participant: "host", mode: "SEND_AND_RECV"))
            try await first.go(try await server.demoURL("ann", meeting: "stage", participant: "ann", mode: "RECV_ONLY", extra: "&autoAccept=1"))
            try await second.go(try await server.demoURL("ben", meeting: "stage", participant: "ben", mode: "RECV_ONLY"))

            try await first.waitForMedia(from: "host", what: "the first viewer decodes the host")
            try await second.waitForMedia(from: "host", what: "the second viewer decodes the host")
            #expect(try await first.state()["publishing"]?.boolValue == false)

            try await host.run("return window.demo.invite('ann')")
            try await host.waitForMedia(from: "ann", what: "the host decodes the viewer it invited")
            try await second.waitForMedia(from: "ann", what: "the other viewer decodes the invited one")
            let annFeed = try #require(try await first.state()["myFeed"]?.numberValue.flatMap(UInt64.init(exactly:)))
            #expect(try await server.publishersOnSFU("meeting:stage").contains(annFeed))

            let changed = ContinuousClock.now
            try await first.run("return window.demo.changeMode('RECV_ONLY')")
            try await eventually("Janus no longer has the feed of the viewer back in RECV_ONLY") {
                try await !server.publishersOnSFU("meeting:stage").contains(annFeed)
            }
            // Said, not checked (tests never time): the issue asks for under a second.
            print("mode change to RECV_ONLY → publisher gone from Janus: \(ContinuousClock.now - changed)")
            for browser in [host, second] {
                try await eventually("the others stop receiving it") {
                    try await browser.state()["subscribed"]?[String(annFeed)] == nil
                }
            }
            // The host is still on stage and still reaches the viewer that went back.
            try await first.waitForMedia(from: "host", what: "the viewer back in RECV_ONLY still decodes the host")
            #expect(try await [host, first, second].asyncMap { try await $0.state()["errors"]?.arrayValue?.count ?? 0 } == [0, 0, 0])
            for browser in [host, first, second] { await browser.close() }
        }
    }

    @Test("Janus killed mid-call: Greenroom keeps answering, media answers unavailable, Janus is restarted and the host's video reaches the viewer again without a reload")
    func janusRestart() async throws {
        guard let programs = MediaPrograms.find(for: "the browser media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let host = try await driver.open()
            let viewer = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "call", participant: "host", mode: "SEND_AND_RECV"))
            try await viewer.go(try await server.demoURL("vic", meeting: "call", participant: "vic", mode: "RECV_ONLY"))
            try await viewer.waitForMedia(from: "host", what: "the viewer decodes the host")
            let (client, _, _) = try await server.joined("watcher", meeting: "call", as: "watcher", mode: .RECV_ONLY)

            let janus = try #require(server.server.core.mediaBackend.process)
            let pid = try #require(janus.pid)
            #expect(kill(pid, SIGKILL) == 0)
            try await eventually("media operations answer unavailable while Janus is away", timeout: .seconds(10)) {
                await refusal { _ = try await client.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: "meeting:call")) } == .unavailable
            }
            // The rest answers: the meeting, as a viewer sees it (the stage and itself, all counted).
            let meeting = try await client.send(MeetingOperation.get, args: MeetingRef(meetingId: "call"))
            #expect(meeting.participants.map(\.participantId) == ["host", "watcher"] && meeting.participantCount == 3)

            try await eventually("Janus runs again", timeout: .seconds(30)) { janus.pid != nil && janus.pid != pid }
            try await eventually("the host published again by itself", timeout: .seconds(30)) {
                try await host.state()["republished"]?.numberValue ?? 0 >= 1
            }
            try await viewer.waitForMedia(from: "host", what: "the viewer decodes the host again")
            #expect(try await viewer.state()["mediaServerLost"]?.numberValue ?? 0 >= 1)
            for browser in [host, viewer] { await browser.close() }
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

extension MediaBrowserTests {
    @Test("a participant that talks becomes the speaker by Janus's audio levels; muted, nobody is; a microphone's sender that sends again or stops, and a camera track that stops, turn them on and off")
    func speaker() async throws {
        guard let programs = MediaPrograms.find(for: "the browser media tests", browsers: true) else { return }
        try await withMediaServer(programs) { server in
            let driver = try await BrowserDriver(programs: programs)
            defer { driver.stop() }
            let (watcher, meeting, recorder) = try await server.joined("watcher", meeting: "talk", as: "watcher", mode: .RECV_ONLY)
            let host = try await driver.open()
            try await host.go(try await server.demoURL("hostuser", meeting: "talk", participant: "host", mode: "SEND_AND_RECV", extra: "&tone=1"))
            do {
                try await eventually("the talking host is the speaker", timeout: .seconds(30)) {
                    await recorder.calls.contains("speaker:host")
                }
            } catch {
                Issue.record("the watcher heard: \(await recorder.calls); the host's page: \(try await host.state())")
                throw error
            }
            try await host.run("return window.demo.setMic(false)")
            try await eventually("muted, nobody is the speaker", timeout: .seconds(60)) {
                await recorder.calls.last { $0.hasPrefix("speaker:") } == "speaker:none"
            }
            #expect(await recorder.calls.filter { $0.hasPrefix("speaker:") } == ["speaker:host", "speaker:none"])

            // The microphone's sender sends again, then stops, without a word to the server:
            // its state follows what Janus receives.
            func hostParticipant() async throws -> MeetingParticipant? {
                try await watcher.send(MeetingOperation.get, args: MeetingRef(meetingId: "talk")).participants.first { $0.participantId == "host" }
            }
            #expect(try await hostParticipant()?.micOn == false)
            try await host.run("return window.demo.setSending('audio', true).then(() => true)")
            try await eventually("audio arriving again turns the host's microphone on", timeout: .seconds(30)) { try await hostParticipant()?.micOn == true }
            try await eventually("and it is the speaker again", timeout: .seconds(30)) { await recorder.calls.last { $0.hasPrefix("speaker:") } == "speaker:host" }
            try await host.run("return window.demo.setSending('audio', false).then(() => true)")
            try await eventually("a sender that stops turns the host's microphone off", timeout: .seconds(30)) { try await hostParticipant()?.micOn == false }
            try await eventually("and nobody is the speaker", timeout: .seconds(30)) { await recorder.calls.last { $0.hasPrefix("speaker:") } == "speaker:none" }
            let microphone = try await server.server.core.storage.readEvents(stream: "meeting:talk", after: 0, limit: 1_000)
                .filter { $0.type.hasPrefix("meeting.stream") && $0.data["kind"]?.stringValue == "audio" }.map(\.type)
            #expect(microphone == [MeetingEventType.streamEnabled, MeetingEventType.streamDisabled, MeetingEventType.streamEnabled, MeetingEventType.streamDisabled])

            // A camera track that stops (the page tells the server nothing) turns the camera
            // off for everyone, because Janus stops receiving video.
            func hostCamera() async throws -> Bool? {
                try await watcher.send(MeetingOperation.get, args: MeetingRef(meetingId: "talk")).participants
                    .first { $0.participantId == "host" }?.webcamOn
            }
            try await eventually("the host's camera is on") { try await hostCamera() == true }
            try await host.run("return window.demo.stopCameraTrack()")
            try await eventually("the stopped track turns the host's camera off", timeout: .seconds(30)) { try await hostCamera() == false }
            let events = try await server.server.core.storage.readEvents(stream: "meeting:talk", after: 0, limit: 1_000)
            let camera = events.filter { $0.type.hasPrefix("meeting.stream") && $0.data["kind"]?.stringValue == "video" }.map(\.type)
            #expect(camera == [MeetingEventType.streamEnabled, MeetingEventType.streamDisabled])
            // The meeting object stayed alive all along (its listener heard the speakers).
            #expect(meeting.participants.contains { $0.id == "host" })
            await host.close()
        }
    }
}

extension MediaBrowserTests {
    @Test("two nodes on one PostgreSQL database and two Janus servers, both given to each node: rooms are spread over the two, every node routes a room to the Janus that holds it (a host on one node reaches a viewer on the other), a room on a Janus that died is made again there while the other's go on; who talks is stored once per change")
    func twoNodes() async throws {
        guard let programs = MediaPrograms.find(for: "the browser media tests", browsers: true),
              let admin = await TestEnvironment.postgres(for: "the two-node media test") else { return }
        try await HeavyTests.run {
            let database = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
            let directory = TestServer.makeDataDirectory()
            let januses = try ["janus-a", "janus-b"].map { name in
                try JanusProcess(executable: programs.janus, directory: directory + "/" + name, iceInterfaces: "lo",
                                 logger: Logger(label: "greenroom.test.\(name)"))
            }
            let running = januses.map { janus in Task { try await janus.run() } }
            func cleanUp() async {
                // Each Janus is gone when this returns (SIGTERM, SIGKILL after two seconds), so
                // that no Janus outlives the test process.
                for (janus, task) in zip(januses, running) {
                    task.cancel()
                    janus.stop()
                    _ = await task.result
                }
                await TestEnvironment.dropPostgresDatabase(database, adminURL: admin)
            }
            do {
                let urls = januses.map(\.url)
                let nodes = [
                    try await TestServer.start(dataDirectory: directory) { $0.databaseURL = database; $0.janusURLs = urls },
                    try await TestServer.start(dataDirectory: directory) { $0.databaseURL = database; $0.janusURLs = urls },
                ]
                for node in nodes {
                    try await eventually("each node has a session on both Janus servers", timeout: .seconds(30)) { node.mediaReady }
                }
                let driver = try await BrowserDriver(programs: programs)
                defer { driver.stop() }
                // A publisher on the second node first, so that Janus tells both nodes who talks.
                let second = try await driver.open()
                try await second.go(try await nodes[1].demoURL("sam", meeting: "spread", participant: "sam", mode: "SEND_AND_RECV"))
                try await eventually("the second node's publisher is on Janus", timeout: .seconds(30)) {
                    try await nodes[1].publishersOnSFU("meeting:spread").count == 1
                }
                let host = try await driver.open()
                let viewer = try await driver.open()
                try await host.go(try await nodes[0].demoURL("hostuser", meeting: "spread", participant: "host", mode: "SEND_AND_RECV", extra: "&tone=1"))
                try await viewer.go(try await nodes[1].demoURL("vic", meeting: "spread", participant: "vic", mode: "RECV_ONLY"))
                try await viewer.waitForMedia(from: "host", what: "a viewer on the second node decodes the host on the first")
                #expect(try await nodes[1].publishersOnSFU("meeting:spread").count == 2)

                // The second node's next room goes to the other Janus; each room is on its own.
                let (olga, _, _) = try await nodes[1].joined("olga", meeting: "other", as: "olga", mode: .RECV_ONLY)
                #expect(try await olga.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: "meeting:other")).streams.isEmpty)
                let storage = nodes[0].server.core.storage
                let spread = try #require(try await storage.load(MediaRoomRecord.self, id: "meeting:spread"))
                let other = try #require(try await storage.load(MediaRoomRecord.self, id: "meeting:other"))
                #expect(Set([spread.janus, other.janus].compactMap { $0 }) == Set(urls))
                let gateways = nodes[0].server.core.media.gateways
                for gateway in gateways {
                    #expect(try await gateway.hasRoom(spread.room) == (gateway.url == spread.janus))
                    #expect(try await gateway.hasRoom(other.room) == (gateway.url == other.janus))
                }

                // Who talks is stored once per change, though both nodes' publishers hear it.
                func talking() async throws -> [String] {
                    try await storage.readEvents(stream: "meeting:spread", after: 0, limit: 1_000)
                        .filter { $0.type == MediaEventType.talking }
                        .map { "\($0.data["participantId"]?.stringValue ?? "?"):\($0.data["talking"]?.boolValue == true)" }
                }
                try await eventually("the talking host is announced", timeout: .seconds(30)) { try await talking().contains("host:true") }
                try await Task.sleep(for: .seconds(3))  // room for a second node's copy to arrive
                let changes = try await talking()
                for participant in ["host", "sam"] {
                    let own = changes.filter { $0.hasPrefix(participant + ":") }
                    #expect(zip(own, own.dropFirst()).allSatisfy { $0 != $1 }, "\(participant)'s changes repeat: \(changes)")
                }

                // The Janus of the second room dies: that room's media is unavailable until it
                // is back, then made again there; the first room's media goes on meanwhile.
                let dying = try #require(januses.first { $0.url == other.janus })
                let pid = try #require(dying.pid)
                let framesBefore = try await viewer.received(from: "host").frames
                #expect(kill(pid, SIGKILL) == 0)
                try await eventually("the second room's media answers unavailable", timeout: .seconds(10)) {
                    await refusal { _ = try await olga.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: "meeting:other")) } == .unavailable
                }
                _ = try await viewer.waitForMedia(from: "host", after: framesBefore, what: "the first room's media goes on")
                try await eventually("the Janus is back and the second room with it", timeout: .seconds(30)) {
                    (try? await olga.send(MediaOperation.subscribe, args: MediaSubscribeArgs(stream: "meeting:other"))) != nil
                }
                // The room was made again through the second node; the first node's own
                // session to the restarted Janus comes back on its own schedule, and until it
                // does its gateway answers unavailable.
                let otherGateway = try #require(gateways.first { $0.url == other.janus })
                try await eventually("the first node's gateway sees the room on the restarted Janus", timeout: .seconds(30)) {
                    (try? await otherGateway.hasRoom(other.room)) == true
                }
                for browser in [host, viewer, second] { await browser.close() }
                for node in nodes { try await node.shutdown() }
            } catch {
                await cleanUp()
                throw error
            }
            await cleanUp()
        }
    }
}
