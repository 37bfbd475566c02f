import Foundation
import Greenroom
import GreenroomServer
import Testing

@Suite("Stage meetings: who is in", .wholeRun)
struct MeetingRosterTests {
    @Test("the same participantId joining twice replaces the older connection; another user may not take it")
    func duplicateParticipant() async throws {
        try await withServer { server in
            let (_, first, firstRecorder) = try await server.joined("alice", meeting: "d", as: "alice-p", mode: .SEND_AND_RECV)
            let (_, _, watcher) = try await server.joined("bob", meeting: "d", as: "bob-p", mode: .SIGNALLING_ONLY)
            let (_, second, _) = try await server.joined("alice", meeting: "d", as: "alice-p", mode: .SEND_AND_RECV)
            try await firstRecorder.wait("the older connection was put out") { $0.calls.contains("left") }
            #expect(await MainActor.run { firstRecorder.errors.map(\.name) } == ["participantIdTaken"])
            #expect(first.meetingState == .CLOSED && second.meetingState == .CONNECTED)
            #expect(await watcher.snapshot.filter { $0.hasPrefix("participant") } == [])
            #expect(second.participants.map(\.id) == ["alice-p", "bob-p"])

            let mallory = try await server.client("mallory")
            let impostor = mallory.initMeeting(meetingId: "d", participantId: "alice-p", participantName: "A", micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY)
            #expect(await refusal { try await impostor.join() } == .participantIdTaken)
            #expect(impostor.meetingState == .CANCELLED)
        }
    }

    @Test("ask_join: a moderator admits one participant and refuses another; only moderators end the meeting")
    func admission() async throws {
        try await withServer { server in
            let (_, moderatorMeeting, moderator) = try await server.joined("mod", meeting: "a", as: "mod", mode: .SEND_AND_RECV, grants: [MeetingGrant.allowMod])
            let guestClient = try await server.client("guest", grants: [MeetingGrant.askJoin])
            let guest = guestClient.initMeeting(meetingId: "a", participantId: "guest", participantName: "Guest", micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY)
            let guestRecorder = await MeetingRecorder.attached(to: guest)
            let joining = Task { try await guest.join() }
            try await moderator.wait("the moderator was asked") { $0.calls.contains("entryRequested:guest") }
            #expect(guest.meetingState == .CONNECTING)
            try await moderatorMeeting.respondToEntry(participantId: "guest", allow: true)
            try await joining.value
            // The moderator's answer is told before the join completes.
            let told = await guestRecorder.snapshot
            let answered = try #require(told.firstIndex(of: "entryResponded:guest:allowed"), "\(told)")
            #expect(told.firstIndex(of: "joined").map { answered < $0 } == true, "\(told)")
            try await moderator.wait("the guest is in") { $0.calls.contains("participantJoined:guest") }

            let otherClient = try await server.client("other", grants: [MeetingGrant.askJoin])
            let other = otherClient.initMeeting(meetingId: "a", participantId: "other", participantName: "Other", micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY)
            let otherRecorder = await MeetingRecorder.attached(to: other)
            let refused = Task { await refusal { try await other.join() } }
            try await moderator.wait("the moderator was asked again") { $0.calls.contains("entryRequested:other") }
            #expect(await refusal { try await guest.respondToEntry(participantId: "other", allow: true) } == .moderatorRequired)
            try await moderatorMeeting.respondToEntry(participantId: "other", allow: false)
            #expect(await refused.value == .entryDenied)
            #expect(other.meetingState == .CANCELLED)
            #expect(await otherRecorder.snapshot.contains("entryResponded:other:denied"))
            try await otherRecorder.expectEventsStreamMatches()
            #expect(!moderatorMeeting.participants.contains { $0.id == "other" })

            #expect(await refusal { try await guest.end() } == .moderatorRequired)
            try await moderatorMeeting.end()
            try await guestRecorder.wait("the guest left with the end") { $0.calls.contains("left") }
            #expect(guest.meetingState == .CLOSED)
            try await guestRecorder.expectEventsStreamMatches()
            let late = try await server.client("late")
            #expect(await refusal { try await late.initMeeting(meetingId: "a", participantId: "late", participantName: "L", micEnabled: false, webcamEnabled: false).join() } == .meetingEnded)
        }
    }

    @Test("100 participants on one topic: each receives every message once, in the publisher's order")
    func hundredSubscribers() async throws {
        try await HeavyTests.run {
            try await withServer { server in
                let (_, publisher, _) = try await server.joined("speaker", meeting: "hall", as: "speaker", mode: .SEND_AND_RECV)
                let joined = try await withThrowingTaskGroup(of: (Meeting, MeetingRecorder).self) { group in
                    for index in 1...100 {
                        group.addTask {
                            let (_, meeting, recorder) = try await server.joined("u\(index)", meeting: "hall", as: "p\(index)", mode: .SIGNALLING_ONLY)
                            await meeting.pubsub.subscribe(topic: "chat", forListener: recorder)
                            return (meeting, recorder)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                let meetings = joined.map(\.0)
                let recorders = joined.map(\.1)
                for index in 1...30 { try await publisher.pubsub.publish(topic: "chat", message: "m\(index)", options: [:]) }
                for recorder in recorders {
                    try await recorder.wait("30 messages") { $0.on("chat").count >= 30 }
                    #expect(await MainActor.run { recorder.on("chat").map(\.message) } == (1...30).map { "m\($0)" })
                }
                // The speaker lists all 101; a viewer the speaker and itself, and counts 101.
                try await eventually("the speaker lists 101 participants") { publisher.participants.count == 101 }
                try await eventually("every viewer counts 101") { meetings.allSatisfy { $0.participantCount == 101 } }
                #expect(meetings.allSatisfy { Set($0.participants.map(\.id)) == [$0.localParticipant.id, "speaker"] })
            }
        }
    }

    @Test("a participant whose connection drops is reconnecting, comes back without leaving; gone for good, it leaves after the grace period")
    func reconnectGrace() async throws {
        // Back within the grace period: a grace no reconnect on a loaded machine comes near,
        // so the come-back cannot turn into a leave and a join.
        try await withServer({ $0.reconnectGrace = 120 }) { server in
            let (_, watching, watcher) = try await server.joined("w", meeting: "g", as: "watcher", mode: .SIGNALLING_ONLY)
            let (_, dropping, dropper) = try await server.joined("d", meeting: "g", as: "dropper", mode: .SEND_AND_RECV)
            #expect(server.server.disconnectClients(userId: "d") == 1)
            try await dropper.wait("the dropper is back") { $0.calls.filter { $0 == "state:CONNECTED" }.count == 2 }
            try await eventually("the watcher sees it back") { watching.participants.first { $0.id == "dropper" }?.isReconnecting == false }
            #expect(await watcher.snapshot.filter { $0.hasPrefix("participant") } == ["participantJoined:dropper"])
            #expect(dropping.meetingState == .CONNECTED)
            #expect(watching.participants.map(\.id) == ["watcher", "dropper"])
        }
        // Gone for good: reconnecting first, then left once the grace period has passed.
        try await withServer({ $0.reconnectGrace = 3; $0.presenceTTL = 3 }) { server in
            let (_, watching, watcher) = try await server.joined("w", meeting: "g", as: "watcher", mode: .SIGNALLING_ONLY)
            let (client, _, _) = try await server.joined("d", meeting: "g", as: "dropper", mode: .SEND_AND_RECV)
            await client.disconnect()
            try await eventually("the watcher sees it reconnecting") { watching.participants.first { $0.id == "dropper" }?.isReconnecting == true }
            try await watcher.wait("it left after the grace period") { $0.calls.contains("participantLeft:dropper") }
            #expect(await watcher.snapshot.filter { $0.hasPrefix("participant") } == ["participantJoined:dropper", "participantLeft:dropper"])
            #expect(watching.participants.map(\.id) == ["watcher"])
        }
    }

    @Test("the backend creates a meeting over REST; a participant leaves; a listener unsubscribes from a topic")
    func backendLeaveAndUnsubscribe() async throws {
        try await withServer { server in
            let (status, created) = try await server.rest("POST", "/v1/meetings", body: ["meetingId": "town-hall"])
            #expect(status == 201 && created["meetingId"]?.stringValue == "town-hall" && created["createdBy"]?.stringValue == "backend")
            let (_, hall, watcher) = try await server.joined("w", meeting: "town-hall", as: "watcher", mode: .SIGNALLING_ONLY)
            let (_, other, _) = try await server.joined("o", meeting: "town-hall", as: "other", mode: .SEND_AND_RECV)
            let (fetched, body) = try await server.rest("GET", "/v1/meetings/town-hall")
            #expect(fetched == 200 && body["participants"]?.arrayValue?.count == 2)

            await hall.pubsub.subscribe(topic: "news", forListener: watcher)
            await hall.pubsub.subscribe(topic: "other", forListener: watcher)
            try await other.pubsub.publish(topic: "news", message: "one")
            try await watcher.wait("the first message") { $0.on("news").count == 1 }
            await hall.pubsub.unsubscribe(topic: "news", forListener: watcher)
            try await other.pubsub.publish(topic: "news", message: "two")
            // A later message on a topic still followed arrives after "two" was handled.
            try await other.pubsub.publish(topic: "other", message: "after")
            try await watcher.wait("a later message on another topic") { $0.on("other").map(\.message) == ["after"] }
            #expect(await MainActor.run { watcher.on("news").map(\.message) } == ["one"])

            try await other.leave()
            try await watcher.wait("the other left") { $0.calls.contains("participantLeft:other") }
            #expect(other.meetingState == .CLOSED)
            #expect(hall.participants.map(\.id) == ["watcher"])
            #expect(await refusal { try await other.pubsub.publish(topic: "news", message: "gone") } == .meetingNotJoined)
        }
    }
}
