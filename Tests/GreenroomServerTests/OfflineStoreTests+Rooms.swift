import Foundation
import Greenroom
import Testing

extension OfflineStoreTests {
    @Test("the live events entered and the meetings joined are kept: a new client lists them from the store before it connects; once connected, those that ended meanwhile are forgotten; exiting and leaving forget at once")
    func roomsFromStore() async throws {
        try await withRestartableServer { node in
            let folder = Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let alice = try await node.storeClient("alice", folder: folder, grants: VideoTests.allScopes)
            let params = LiveEvent.CreateParams()
            params.userIdsForHost = ["alice"]
            var events: [LiveEvent] = []
            for title in ["first", "second", "exited"] {
                params.title = title
                let live = try await alice.createLiveEvent(config: params)
                try await live.setEventReady()
                try await live.enter()
                events.append(live)
            }
            try await events[2].exit()
            var meetings: [Meeting] = []
            for id in ["standup", "retro", "left"] {
                let meeting = alice.initMeeting(meetingId: id, participantId: "alice-\(id)", participantName: "Alice", micEnabled: false, webcamEnabled: false, mode: .SIGNALLING_ONLY)
                try await meeting.join()
                meetings.append(meeting)
            }
            try await meetings[2].leave()
            #expect(try await alice.enteredLiveEvents().map(\.liveEventId) == events[0...1].map(\.liveEventId))
            #expect(try await alice.joinedMeetings().map(\.meetingId) == ["standup", "retro"])
            await alice.disconnect()

            // While alice is away, the backend ends one of each.
            let server = try node.server
            #expect(try await server.rest("POST", "/v1/live-events/\(events[1].liveEventId)/end").0 == 200)
            #expect(try await server.rest("POST", "/v1/meetings/retro/end").0 == 200)

            let reopened = node.unconnectedStoreClient(folder: folder)
            let stored = try await reopened.enteredLiveEvents()
            #expect(stored.map(\.liveEventId) == events[0...1].map(\.liveEventId), "as last seen")
            #expect(stored.map(\.title) == ["first", "second"])
            #expect(try await reopened.joinedMeetings().map(\.meetingId) == ["standup", "retro"])

            try await reopened.connect(token: try await node.token("alice", grants: VideoTests.allScopes))
            #expect(try await reopened.enteredLiveEvents().map(\.liveEventId) == [events[0].liveEventId])
            #expect(try await reopened.joinedMeetings().map(\.meetingId) == ["standup"])
            await reopened.disconnect()
            let later = node.unconnectedStoreClient(folder: folder)
            #expect(try await later.enteredLiveEvents().map(\.liveEventId) == [events[0].liveEventId], "the ended one is gone from the store")
            #expect(try await later.joinedMeetings().map(\.meetingId) == ["standup"])
        }
    }
}
