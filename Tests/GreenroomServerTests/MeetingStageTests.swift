import Foundation
import GreenroomProtocol
import Greenroom
@testable import GreenroomServer
import Testing

/// Big meetings: the participants off stage (`RECV_ONLY`, `SIGNALLING_ONLY`) are announced to
/// those who watch (moderators, `SEND_AND_RECV`) and counted for everyone; the meeting's
/// record keeps the count and stage through every way in and out.
@Suite("Stage meetings at scale: who hears of whom, the kept count", .wholeRun)
struct MeetingStageTests {
    @Test("viewers are announced to the host and the moderator, not to each other; everyone has the count; a viewer on stage is announced to all until it leaves; the kept count follows joins, leaves and a timeout")
    func offStage() async throws {
        try await withServer({ $0.reconnectGrace = 2; $0.presenceTTL = 2 }) { server in
            let (_, hostMeeting, host) = try await server.joined("hostuser", meeting: "big", as: "host", mode: .SEND_AND_RECV, mic: true)
            let (_, modMeeting, mod) = try await server.joined("moduser", meeting: "big", as: "mod", mode: .SIGNALLING_ONLY, grants: [MeetingGrant.allowMod])
            let (_, aMeeting, a) = try await server.joined("auser", meeting: "big", as: "viewerA", mode: .RECV_ONLY)
            let (bClient, bMeeting, b) = try await server.joined("buser", meeting: "big", as: "viewerB", mode: .SIGNALLING_ONLY)
            let (_, cMeeting, _) = try await server.joined("cuser", meeting: "big", as: "viewerC", mode: .RECV_ONLY)

            // The join answers: a viewer lists those on stage and itself; all count everyone.
            #expect(bMeeting.participants.map(\.id) == ["viewerB", "host", "mod"])
            #expect(cMeeting.participantCount == 5)
            for recorder in [host, mod] {
                try await recorder.wait("the viewers' joins reach those who watch") {
                    Set(["viewerA", "viewerB", "viewerC"].map { "participantJoined:\($0)" }).isSubset(of: Set($0.calls))
                }
            }
            #expect(hostMeeting.participants.map(\.id) == ["host", "mod", "viewerA", "viewerB", "viewerC"])
            #expect(modMeeting.participants.map(\.id) == ["mod", "host", "viewerA", "viewerB", "viewerC"])
            try await a.wait("viewer A hears the count, at most once a second") { $0.calls.contains("count:5") }
            #expect(aMeeting.participantCount == 5)

            // meeting.get: as the join; the backend has everyone.
            let asViewer = try await aMeeting.client.send(MeetingOperation.get, args: MeetingRef(meetingId: "big"))
            #expect(asViewer.participants.map(\.participantId) == ["host", "mod", "viewerA"] && asViewer.participantCount == 5)
            // From a connection that did not join: its user's member record lets it read.
            let aElsewhere = try await server.client("auser")
            #expect(try await aElsewhere.send(MeetingOperation.get, args: MeetingRef(meetingId: "big")).participantCount == 5)
            let stranger = try await server.client("stranger")
            #expect(await refusal { _ = try await stranger.send(MeetingOperation.get, args: MeetingRef(meetingId: "big")) } == .meetingNotJoined)
            let (_, backend) = try await server.rest("GET", "/v1/meetings/big")
            #expect(backend["participants"]?.arrayValue?.count == 5 && backend["participantCount"]?.numberValue == 5)

            // Viewer C comes on stage: everyone hears of it, and of its leave though it went
            // back off stage before.
            await cMeeting.changeMode(.SEND_AND_RECV)
            try await a.wait("viewer A hears of C on stage") { $0.calls.contains("participantJoined:viewerC") && $0.calls.contains("mode:viewerC:SEND_AND_RECV") }
            #expect(aMeeting.participants.first { $0.id == "viewerC" }?.mode == .SEND_AND_RECV)
            await cMeeting.changeMode(.RECV_ONLY)
            try await a.wait("viewer A hears C go back") { $0.calls.contains("mode:viewerC:RECV_ONLY") }
            try await cMeeting.leave()
            try await a.wait("viewer A hears C leave") { $0.calls.contains("participantLeft:viewerC") }

            // Viewer B's connection drops for good: it times out; only those who watch hear it.
            await bClient.disconnect()
            try await host.wait("the host hears B time out") { $0.calls.contains("participantLeft:viewerB") }
            try await mod.wait("the moderator hears B time out") { $0.calls.contains("participantLeft:viewerB") }
            try await a.wait("viewer A's count follows") { $0.calls.last { $0.hasPrefix("count:") } == "count:3" }
            #expect(!(await a.snapshot).contains { $0.hasSuffix(":viewerB") })
            let bAgain = try await server.client("buser")
            #expect(await refusal { _ = try await bAgain.send(MeetingOperation.get, args: MeetingRef(meetingId: "big")) } == .meetingNotJoined)
            // B heard of C only once it was on stage, and never of A.
            #expect(!(await b.snapshot).contains { $0.hasSuffix(":viewerA") })

            // The kept count and stage are the roster's.
            let record = try #require(try await server.server.core.storage.load(MeetingRecord.self, id: "big"))
            let roster = try await server.server.core.storage.presence(stream: "meeting:big").filter { $0.clientId.hasPrefix("p:") }
            #expect(record.count == roster.count && record.count == 3)
            #expect(Set(record.stage?.keys.map { $0 } ?? []) == ["host", "mod"])

            // A record stored before the count was kept is counted from the roster at its
            // next change.
            var stripped = record
            stripped.count = nil
            stripped.stage = nil
            let old = stripped
            try await server.server.core.events.transact { try await $0.save(old) }
            let (_, _, _) = try await server.joined("duser", meeting: "big", as: "viewerD", mode: .RECV_ONLY)
            let counted = try #require(try await server.server.core.storage.load(MeetingRecord.self, id: "big"))
            #expect(counted.count == 4 && Set(counted.stage?.keys.map { $0 } ?? []) == ["host", "mod"])
            try await host.wait("the host hears D") { $0.calls.contains("participantJoined:viewerD") }

            // The meeting ends: the count is 0.
            try await modMeeting.end()
            let ended = try #require(try await server.server.core.storage.load(MeetingRecord.self, id: "big"))
            #expect(ended.count == 0 && ended.stage == [:])
        }
    }
}
