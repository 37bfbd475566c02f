import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

@Suite("Stage meetings: modes, pins, pub/sub and the invite-on-stage flow", .wholeRun)
struct MeetingTests {
    @Test("the seed's flow: a viewer invited on stage accepts, another declines; sendOnly reaches no one else, not even after a reconnect")
    func inviteOnStage() async throws {
        try await withServer { server in
            let (_, hostMeeting, host) = try await server.joined("hostuser", meeting: "show", as: "host", mode: .SEND_AND_RECV, mic: true, webcam: true)
            let (_, aMeeting, a) = try await server.joined("auser", meeting: "show", as: "viewerA", mode: .SIGNALLING_ONLY)
            // B is held offline (its token provider waits) whenever the test cuts it.
            let gate = Locked(true)
            let bClient = server.track(GreenroomClient(configuration: {
                var config = ClientConfiguration(serverURL: server.url)
                config.initialReconnectDelay = .milliseconds(50)
                return config
            }()))
            try await bClient.connect(token: try await server.token("buser")) {
                while !gate.value { try await Task.sleep(for: .milliseconds(20)) }
                return try await server.token("buser")
            }
            let bMeeting = bClient.initMeeting(meetingId: "show", participantId: "viewerB", participantName: "B", micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY)
            let b = await MeetingRecorder.attached(to: bMeeting)
            try await bMeeting.join()
            for (meeting, recorder) in [(hostMeeting, host), (aMeeting, a), (bMeeting, b)] {
                await MainActor.run { recorder.pinOnStage = true }
                await meeting.pubsub.subscribe(topic: "HOSTREQUESTED", forListener: recorder)
                await meeting.pubsub.subscribe(topic: "ACK", forListener: recorder)
            }
            #expect(hostMeeting.participants.map(\.id) == ["host", "viewerA", "viewerB"])
            // A viewer lists those on stage and itself; it counts everyone.
            #expect(bMeeting.participants.map(\.id) == ["viewerB", "host"] && bMeeting.participantCount == 3)
            #expect(aMeeting.participants.first { $0.id == "host" }?.webcamOn == true)

            // B is offline when the private request to A is published (and persisted).
            gate.withLock { $0 = false }
            #expect(server.server.disconnectClients(userId: "buser", code: .tokenExpired) == 1)
            try await b.wait("B is reconnecting") { $0.calls.contains("state:RECONNECTING") }
            let request: [String: RawJSON] = ["receiverId": "viewerA", "senderName": "Host", "senderId": "host"]
            try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "Request for mode change your mode",
                                                 options: ["sendOnly": ["viewerA"], "persist": true], payload: request)
            try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "Request for mode change your mode", options: [:], payload: request)
            gate.withLock { $0 = true }
            try await b.wait("B is back") { $0.calls.filter { $0 == "state:CONNECTED" }.count == 2 }
            try await a.wait("A has both requests") { $0.on("HOSTREQUESTED").count == 2 }
            try await b.wait("B has the public request") { $0.on("HOSTREQUESTED").count == 1 }
            #expect(await MainActor.run { a.on("HOSTREQUESTED").map(\.payload["receiverId"]) } == ["viewerA", "viewerA"])
            #expect(try await bMeeting.pubsub.getMessagesForTopic("HOSTREQUESTED").isEmpty)
            #expect(try await aMeeting.pubsub.getMessagesForTopic("HOSTREQUESTED").count == 1)

            // A accepts: changes its own mode, and acknowledges.
            await aMeeting.changeMode(.SEND_AND_RECV)
            try await aMeeting.pubsub.publish(topic: "ACK", message: "ACCEPTED", options: [:], payload: ["receiverId": "host", "accpeterName": "A"])
            for recorder in [host, a, b] {
                try await recorder.wait("everyone saw A's mode and pin") { $0.calls.contains("mode:viewerA:SEND_AND_RECV") && $0.calls.contains("pin:viewerA:SHARE_AND_CAM") }
            }
            try await host.wait("the host saw the ACK") { $0.on("ACK").contains { $0.message == "ACCEPTED" && $0.senderId == "viewerA" } }
            #expect(hostMeeting.pinnedParticipants.map(\.id) == ["viewerA"])
            #expect(bMeeting.participants.first { $0.id == "viewerA" }?.mode == .SEND_AND_RECV)

            // B declines a second request.
            try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "Request for mode change your mode", options: ["sendOnly": ["viewerB"]],
                                                 payload: ["receiverId": "viewerB", "senderName": "Host", "senderId": "host"])
            try await b.wait("B got its request") { $0.on("HOSTREQUESTED").count == 2 }
            try await bMeeting.pubsub.publish(topic: "ACK", message: "DECLINED", options: [:], payload: ["receiverId": "host", "accpeterName": "B"])
            try await host.wait("the host saw the decline") { $0.on("ACK").contains { $0.message == "DECLINED" } }
            #expect(await MainActor.run { a.on("HOSTREQUESTED").count } == 2)
            #expect(bMeeting.participants.first { $0.id == "viewerB" }?.mode == .SIGNALLING_ONLY)
        }
    }

    @Test("the seed's payload literals: [String: String] and [String: Any] go out as JSON; a value that is not JSON is refused before anything is sent")
    func payloadLiterals() async throws {
        try await withServer { server in
            let (_, hostMeeting, _) = try await server.joined("hostuser", meeting: "p", as: "host", mode: .SEND_AND_RECV)
            let (_, viewerMeeting, viewer) = try await server.joined("viewer", meeting: "p", as: "viewer", mode: .SIGNALLING_ONLY)
            await viewerMeeting.pubsub.subscribe(topic: "HOSTREQUESTED", forListener: viewer)
            // The viewer's join reaches the host as an event, after the viewer's own reply.
            try await eventually("the host sees the viewer") { hostMeeting.participants.contains { $0.id == "viewer" } }
            let participant = try #require(hostMeeting.participants.first { $0.id == "viewer" })
            // Seed 001's code, as written: a [String: String] literal.
            let senderName = hostMeeting.participants.first?.displayName ?? "Unknown"
            let senderId = hostMeeting.participants.first?.id ?? "Unknown"
            let payload = [
                "receiverId": participant.id,
                "senderName": senderName,
                "senderId": senderId,
            ]
            try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "Request for mode change your mode", options: [:], payload: payload)
            // Mixed values, as [String: Any].
            let extra: [String: Any] = ["receiverId": "viewer", "seats": 3, "ratio": 0.5, "vip": true, "tags": ["a", "b"], "note": NSNull(), "nested": ["n": 1]]
            try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "typed", options: [:], payload: extra)
            try await viewer.wait("both arrived") { $0.on("HOSTREQUESTED").count == 2 }
            let got = await MainActor.run { viewer.on("HOSTREQUESTED").map(\.payload) }
            #expect(got[0] == ["receiverId": "viewer", "senderName": "Host", "senderId": "host"])
            #expect(got[0]["receiverId"]?.stringValue == "viewer")
            #expect(got[1] == ["receiverId": "viewer", "seats": 3, "ratio": 0.5, "vip": true, "tags": ["a", "b"], "note": .nil, "nested": ["n": 1]])
            // Seed 001's reading code, as written: casts, as from the vendor's [String: Any].
            let json = got[0]
            #expect(!json.isEmpty)
            if let participantId = json["receiverId"] as? String, let participantName = json["senderName"] as? String {
                #expect(participantId == "viewer" && participantName == "Host" && json["senderId"] as? String == "host")
            } else {
                Issue.record("the seed's casts read nothing from \(json)")
            }
            let typed = got[1]
            #expect(typed["seats"] as? Int == 3 && typed["seats"] as? Double == 3 && typed["ratio"] as? Double == 0.5)
            #expect(typed["vip"] as? Bool == true && typed["tags"] as? [String] == ["a", "b"] && typed["note"] is NSNull)
            #expect((typed["nested"] as? [String: Any])?["n"] as? Int == 1 && typed["absent"] == nil && typed["seats"] as? String == nil)
            #expect(typed["nested"]?["n"]?.doubleValue == 1 && typed.json["tags"] == ["a", "b"])

            // A Date is not JSON, nor is 2^60: refused with where it is, and nothing is sent.
            await #expect { try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "bad", options: [:], payload: ["when": Date()] as [String: Any]) } throws: { error in
                let error = error as? GreenroomError
                return error?.errorCode == .invalidParameterValue && error?.message.contains(#"payload["when"] is a Date"#) == true
            }
            await #expect { try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "big", options: [:], payload: ["n": [1 << 60]] as [String: Any]) } throws: { error in
                (error as? GreenroomError)?.message.contains(#"payload["n"][0] is 1152921504606846976"#) == true
            }
            try await hostMeeting.pubsub.publish(topic: "HOSTREQUESTED", message: "last", options: [:], payload: ["receiverId": "viewer"])
            try await viewer.wait("the last arrived") { $0.on("HOSTREQUESTED").count == 3 }
            #expect(await MainActor.run { viewer.on("HOSTREQUESTED").map(\.message) } == ["Request for mode change your mode", "typed", "last"])
        }
    }

    @Test("changeMode refusals; a SIGNALLING_ONLY participant may not turn its camera on; others see streams turn on and off")
    func modesAndMedia() async throws {
        try await withServer { server in
            let (_, hostMeeting, host) = try await server.joined("hostuser", meeting: "m", as: "host", mode: .SEND_AND_RECV)
            let client = try await server.client("viewer")
            let viewerMeeting = client.initMeeting(meetingId: "m", participantId: "viewer", participantName: "V", micEnabled: true, webcamEnabled: true, mode: .SIGNALLING_ONLY)
            let viewer = await MeetingRecorder.attached(to: viewerMeeting)
            await viewerMeeting.changeMode(.SEND_AND_RECV)
            try await viewer.wait("refused before joining") { $0.calls.contains("error:meetingNotJoined") }
            try await viewerMeeting.join()
            #expect(viewerMeeting.localParticipant.webcamOn == false && viewerMeeting.localParticipant.micOn == false)
            await viewerMeeting.changeMode(.SIGNALLING_ONLY)
            try await viewer.wait("refused to the current mode") { $0.calls.contains("error:modeUnchanged") }
            #expect(await refusal { try await viewerMeeting.enableWebcam() } == .mediaNotAllowedInMode)
            #expect(await refusal { try await viewerMeeting.unmuteMic() } == .mediaNotAllowedInMode)
            try await viewerMeeting.disableWebcam()

            try await eventually("the host sees the viewer") { hostMeeting.participants.contains { $0.id == "viewer" } }
            let remote = try #require(hostMeeting.participants.first { $0.id == "viewer" })
            await MainActor.run { remote.addEventListener(host) }
            await viewerMeeting.changeMode(.SEND_AND_RECV)
            #expect(viewerMeeting.meetingMode == .SEND_AND_RECV)
            try await viewerMeeting.enableWebcam()
            try await viewerMeeting.unmuteMic()
            await viewerMeeting.changeMode(.RECV_ONLY)
            try await host.wait("the host saw the viewer's streams") { $0.calls.contains("mode:viewer:RECV_ONLY") }
            #expect(await host.snapshot.filter { $0.hasPrefix("on:") || $0.hasPrefix("off:") || $0.hasPrefix("mode:") } == [
                "mode:viewer:SEND_AND_RECV", "on:viewer:video", "on:viewer:audio", "off:viewer:audio", "off:viewer:video", "mode:viewer:RECV_ONLY",
            ])
            #expect(remote.mode == .RECV_ONLY && !remote.webcamOn && !remote.micOn)
        }
    }

    @Test("pins are additive across types and reach every participant; persisted messages reach later subscribers")
    func pinsAndPersistence() async throws {
        try await withServer { server in
            let (_, one, first) = try await server.joined("u1", meeting: "p", as: "one", mode: .SEND_AND_RECV)
            let (_, two, second) = try await server.joined("u2", meeting: "p", as: "two", mode: .SEND_AND_RECV)
            // Two's join reaches one as an event, after two's own reply.
            try await eventually("one sees two") { one.participants.contains { $0.id == "two" } }
            let target = try #require(one.participants.first { $0.id == "two" })
            target.pin(.CAM)
            try await second.wait("cam pinned") { $0.calls.contains("pin:two:CAM") }
            two.localParticipant.pin(.SHARE)
            try await first.wait("both pinned") { $0.calls.contains("pin:two:SHARE_AND_CAM") }
            target.unpin(.CAM)
            for recorder in [first, second] {
                try await recorder.wait("share only") { $0.calls.filter { $0.hasPrefix("pin:") } == ["pin:two:CAM", "pin:two:SHARE_AND_CAM", "pin:two:SHARE"] }
            }
            #expect(one.pinnedParticipants.map(\.id) == ["two"] && target.pinState == PinState(cam: false, share: true))
            #expect(two.localParticipant.pinState == PinState(cam: false, share: true))

            for index in 1...3 {
                try await one.pubsub.publish(topic: "notes", message: "n\(index)", options: ["persist": true], payload: ["n": .number(Double(index))])
            }
            try await one.pubsub.publish(topic: "notes", message: "not kept", options: [:])
            let (_, late, lateRecorder) = try await server.joined("u3", meeting: "p", as: "late", mode: .SIGNALLING_ONLY)
            #expect(late.pinnedParticipants.map(\.id) == ["two"])
            await late.pubsub.subscribe(topic: "notes", forListener: lateRecorder)
            try await lateRecorder.wait("the late subscriber got the kept messages") { $0.on("notes").count == 3 }
            #expect(await MainActor.run { lateRecorder.on("notes").map(\.message) } == ["n1", "n2", "n3"])
            #expect(try await late.pubsub.getMessagesForTopic("notes").map(\.message) == ["n1", "n2", "n3"])
            try await one.pubsub.publish(topic: "notes", message: "n4", options: ["persist": true])
            try await lateRecorder.wait("and the next one, once") { $0.on("notes").count == 4 }
            #expect(await MainActor.run { lateRecorder.on("notes").map(\.message) } == ["n1", "n2", "n3", "n4"])
            // Limits.
            #expect(await refusal { try await one.pubsub.publish(topic: "", message: "x") } == .invalidParameterValue)
            #expect(await refusal { try await one.pubsub.publish(topic: "t", message: String(repeating: "x", count: 4097)) } == .payloadTooLarge)
            #expect(await refusal { try await one.pubsub.publish(topic: "t", message: "x", payload: ["big": .string(String(repeating: "x", count: 17_000))]) } == .payloadTooLarge)
            #expect(await refusal { try await one.pubsub.publish(topic: "t", message: "x", options: ["sendOnly": ["nobody"]]) } == .meetingNotFound)
        }
    }

    @available(*, deprecated, message: "checks the deprecated mode names on purpose")
    @Test("the deprecated mode names are aliases")
    func deprecatedModes() {
        #expect(Mode.CONFERENCE == .SEND_AND_RECV && Mode.VIEWER == .SIGNALLING_ONLY)
    }
}
