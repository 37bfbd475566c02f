import Foundation
import Greenroom
import GreenroomServer
import Testing

extension MultiNodeTests {
    @Test("a chat channel on two nodes: members on each send at once; everyone sees every message in one order")
    func chatAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            let carol = try await two.client("carol")
            try await carol.setChannelInvitationPreference(autoAccept: false)
            _ = try await alice.createChannel(id: "bridge", name: "Bridge", members: ["bob"])
            let aliceRoom = alice.channelController(for: "bridge")
            let bobRoom = bob.channelController(for: "bridge")
            try await aliceRoom.synchronize()
            try await bobRoom.synchronize()
            let aliceEvents = aliceRoom.events
            let bobEvents = bobRoom.events

            // A rule checked on the other node: carol (node 2) is invited by bob (node 2) and
            // accepts; a non-member on node 1 is refused.
            let carolInbox = try await carol.subscribe(to: StreamName.user("carol"))
            try await bobRoom.inviteUserIds(["carol"])
            #expect(try await collect(carolInbox, count: 1).events.first?.type == ChatEventType.channelInvited)
            try await carol.channelController(for: "bridge").acceptInvitation()
            let dave = try await one.client("dave")
            #expect(await refusal { try await dave.channelController(for: "bridge").sendMessage(text: "hi") } == .notChannelMember)

            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { for index in 1...50 { try await aliceRoom.sendMessage(text: "a\(index)") } }
                group.addTask { for index in 1...50 { try await bobRoom.sendMessage(text: "b\(index)") } }
                try await group.waitForAll()
            }
            let isMessage: @Sendable ([ChatEvent]) -> Bool = { $0.filter { $0.type == ChatEventType.messageNew }.count == 100 }
            let onOne = try await chatEvents(aliceEvents, until: isMessage).filter { $0.type == ChatEventType.messageNew }.compactMap(\.message)
            let onTwo = try await chatEvents(bobEvents, until: isMessage).filter { $0.type == ChatEventType.messageNew }.compactMap(\.message)
            #expect(onOne.map(\.id) == onTwo.map(\.id))
            #expect(onOne.map(\.sequence) == Array(1...100))
            // Each sender's own order is kept.
            #expect(onOne.filter { $0.senderId == "alice" }.map(\.text) == (1...50).map { "a\($0)" })
            #expect(onOne.filter { $0.senderId == "bob" }.map(\.text) == (1...50).map { "b\($0)" })
            let history = try await carol.channelController(for: "bridge").loadPreviousMessages(limit: 100).items
            #expect(history.map(\.id) == onOne.map(\.id))
            #expect(try await alice.channel("bridge").memberCount == 3)
            for client in [alice, bob, carol, dave] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }

    @Test("a live event and a meeting on two nodes: hosts, participants, custom items, counts, pins and sendOnly cross nodes")
    func liveEventAndMeetingAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            // A live event hosted on node 1, watched from both nodes.
            let host = try await one.client("host")
            let event = try await host.createLiveEvent(config: LiveEvent.CreateParams())
            try await event.enterAsHost()
            try await event.setEventReady()
            var watchers: [(LiveEvent, LiveEventRecorder)] = []
            for (index, node) in [one, two, two].enumerated() {
                let live = try await node.client("viewer\(index)").getLiveEvent(id: event.liveEventId)
                try await live.enter()
                watchers.append((live, await LiveEventRecorder.attached(to: live)))
            }
            try await event.startEvent()
            try await event.updateCustomItems(customItems: ["song": "one"])
            for (live, recorder) in watchers {
                try await recorder.wait("custom items reached every node") { $0.contains("itemsUpdated:song") }
                try await eventually("exact counts on every node") { live.participantCount == 3 }
            }
            #expect(try await two.client("viewer9").getLiveEvent(id: event.liveEventId).participantCount == 3)

            // A meeting: the host on node 1, viewers on node 2.
            let (_, stage, hostSide) = try await one.joined("mc", meeting: "stage", as: "mc", mode: .SEND_AND_RECV)
            let (_, aMeeting, a) = try await two.joined("va", meeting: "stage", as: "a", mode: .SIGNALLING_ONLY)
            let (_, bMeeting, b) = try await two.joined("vb", meeting: "stage", as: "b", mode: .SIGNALLING_ONLY)
            await aMeeting.pubsub.subscribe(topic: "HOSTREQUESTED", forListener: a)
            await bMeeting.pubsub.subscribe(topic: "HOSTREQUESTED", forListener: b)
            try await stage.pubsub.publish(topic: "HOSTREQUESTED", message: "come up", options: ["sendOnly": ["a"]], payload: ["receiverId": "a"])
            try await a.wait("A got the request on the other node") { $0.on("HOSTREQUESTED").count == 1 }
            await aMeeting.changeMode(.SEND_AND_RECV)
            try await hostSide.wait("the host saw A's mode") { $0.calls.contains("mode:a:SEND_AND_RECV") }
            stage.participants.first { $0.id == "a" }?.pin()
            try await b.wait("B saw the pin") { $0.calls.contains("pin:a:SHARE_AND_CAM") }
            #expect(await MainActor.run { b.on("HOSTREQUESTED").isEmpty })
            #expect(bMeeting.pinnedParticipants.map(\.id) == ["a"])
            try await one.shutdown()
            try await two.shutdown()
        }
    }

    @Test("a killed node's live event host and participant and meeting participant expire, and its users go offline; the other node's clients are told")
    func rosterOfKilledNode() async throws {
        try await withCluster { url, directory in
            let two = try await TestServer.start(dataDirectory: directory) {
                $0.databaseURL = url
                $0.presenceTTL = 2
            }
            let (first, base) = try await CLI.serve(["--port", "0", "--data-dir", directory, "--database", url],
                                                    environment: ["GREENROOM_PRESENCE_TTL_SECONDS": "2", "GREENROOM_RECONNECT_GRACE_SECONDS": "1"])
            func doomed(_ user: String) async throws -> GreenroomClient {
                let client = GreenroomClient(serverURL: base)
                try await client.connect(token: try await two.token(user))
                return client
            }
            let host = try await doomed("host")
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = ["host", "cohost"]
            let event = try await host.createLiveEvent(config: params)
            try await event.enterAsHost()
            try await event.setEventReady()
            let cohost = try await two.client("cohost").getLiveEvent(id: event.liveEventId)
            try await cohost.enterAsHost()
            let watching = await LiveEventRecorder.attached(to: cohost)
            let participant = try await doomed("fan").getLiveEvent(id: event.liveEventId)
            try await participant.enter()
            try await eventually("the cohost counts the fan") { cohost.participantCount == 1 }

            let doomedMeeting = try await doomed("speaker").initMeeting(meetingId: "panel", participantId: "speaker", participantName: "S", micEnabled: false, webcamEnabled: false)
            try await doomedMeeting.join()
            let (_, panel, panelRecorder) = try await two.joined("chair", meeting: "panel", as: "chair", mode: .SEND_AND_RECV)
            #expect(panel.participants.map(\.id) == ["chair", "speaker"])
            let watcher = try await two.client("watcher")
            _ = try await watcher.createChannel(id: "fans", name: "Fans", members: ["fan"])
            let fans = watcher.channelController(for: "fans")
            try await fans.synchronize()
            try await fans.loadMemberPresence()
            #expect(fans.presence(of: "fan")?.online == true)

            first.process.send(SIGKILL)
            let killedAt = Date()
            try await watching.wait("the host's exit", timeout: .seconds(30)) { $0.contains("hostExit:host") }
            try await eventually("the fan is no longer counted") { cohost.participantCount == 0 }
            try await panelRecorder.wait("the speaker left", timeout: .seconds(30)) { $0.calls.contains("participantLeft:speaker") }
            try await eventually("the fan, whose only connection was on the killed node, is offline") { fans.presence(of: "fan")?.online == false }
            #expect(Date().timeIntervalSince(killedAt) < 20)
            #expect(cohost.hosts.map(\.userId) == ["cohost"])
            #expect(panel.participants.map(\.id) == ["chair"])
            _ = (host, participant, doomedMeeting)
            try await two.shutdown()
        }
    }
}
