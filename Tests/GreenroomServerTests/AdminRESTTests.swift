import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The REST calls the console is built on, with the API key: each reads what it says, and
/// each change reaches connected clients as the same change made by a user would.
@Suite("The app's backend over REST: what the console reads and fixes", .wholeRun)
struct AdminRESTTests {
    @Test("channels paged newest activity first; members and recent messages; a member removed and a message deleted reach the members; a second removal is refused")
    func chat() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let bob = try await server.client("bob")
            for id in ["c1", "c2", "c3"] { _ = try await alice.createChannel(id: ChannelId(id), name: id.uppercased(), members: ["bob"]) }
            let room = alice.channelController(for: "c2")
            var sent: [ChatMessage] = []
            for text in ["one", "two", "three"] { sent.append(try await room.sendMessage(text: text)) }
            let onBob = try await bob.subscribe(to: ChannelId("c2").stream, since: StreamPosition(offset: 3, epoch: nil))

            // Pages of one, most recently active first (c2 has messages), then the rest.
            var seen: [String] = []
            var cursor: String?
            repeat {
                let (status, page) = try await server.rest("GET", "/v1/channels?limit=1" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(status == 200)
                seen += page["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
                cursor = page["next"]?.stringValue
            } while cursor != nil
            #expect(seen.first == "c2" && Set(seen) == ["c1", "c2", "c3"] && seen.count == 3, "\(seen)")

            let members = try await server.rest("GET", "/v1/channels/c2/members").1.arrayValue ?? []
            #expect(Set(members.compactMap { $0["userId"]?.stringValue }) == ["alice", "bob"])
            #expect(members.first { $0["userId"]?.stringValue == "alice" }?["isOperator"]?.boolValue == true)
            let recent = try await server.rest("GET", "/v1/channels/c2/messages?limit=2").1.arrayValue ?? []
            #expect(recent.compactMap { $0["text"]?.stringValue } == ["two", "three"])
            #expect(try await server.rest("GET", "/v1/channels/none/messages").0 == 404)

            // A message deleted by the backend: emptied, announced; deleting it again changes nothing.
            let (deletedStatus, deleted) = try await server.rest("DELETE", "/v1/channels/c2/messages/\(sent[0].id)")
            #expect(deletedStatus == 200 && deleted["text"]?.stringValue == "" && deleted["deletedAt"] != nil)
            #expect(try await server.rest("DELETE", "/v1/channels/c2/messages/\(sent[0].id)").0 == 200)
            #expect(try await server.rest("DELETE", "/v1/channels/c2/messages/nope").0 == 404)
            let (events, _) = try await collect(onBob, count: 1)
            #expect(events.map(\.type) == [ChatEventType.messageDeleted] && events.first?.data["message"]?["id"]?.stringValue == sent[0].id)

            // Bob removed: alice hears member.left with no actor; he is no longer a member.
            let onAlice = try await alice.subscribe(to: ChannelId("c2").stream, since: StreamPosition(offset: 4, epoch: nil))
            #expect(try await server.rest("DELETE", "/v1/channels/c2/members/bob").0 == 204)
            let left = try #require(try await collect(onAlice, count: 1).events.first)
            #expect(left.type == ChatEventType.memberLeft && left.data["member"]?["userId"]?.stringValue == "bob" && (left.data["actorId"] == nil || left.data["actorId"] == .nil))
            #expect(try await server.rest("GET", "/v1/channels/c2/members").1.arrayValue?.count == 1)
            #expect(try await server.rest("DELETE", "/v1/channels/c2/members/bob").0 == 403)
            #expect(try await server.rest("DELETE", "/v1/channels/c2/members/bob", key: "wrong").0 == 401)
        }
    }

    @Test("live events listed by state and ended by the backend (endedBy $backend; not twice); meetings listed and ended; this node's connections; the API key reads videos but creates none (a video needs a user to own it)")
    func liveMeetingsConnectionsVideos() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            let params = LiveEvent.CreateParams()
            params.title = "Launch"
            params.userIdsForHost = ["alice"]
            let live = try await alice.createLiveEvent(config: params)
            try await live.enterAsHost()
            try await live.setEventReady()
            let (ended, event) = try await server.rest("POST", "/v1/live-events/\(live.liveEventId)/end")
            #expect(ended == 200 && event["state"]?.stringValue == "ended" && event["endedBy"]?.stringValue == "$backend", "\(event)")
            #expect(try await server.rest("POST", "/v1/live-events/\(live.liveEventId)/end").0 == 409)
            #expect(try await server.rest("POST", "/v1/live-events/none/end").0 == 404)
            let listed = try await server.rest("GET", "/v1/live-events?state=ended").1["items"]?.arrayValue ?? []
            #expect(listed.compactMap { $0["liveEventId"]?.stringValue } == [live.liveEventId])
            #expect(try await server.rest("GET", "/v1/live-events?state=created").1["items"]?.arrayValue?.isEmpty == true)
            #expect(try await server.rest("GET", "/v1/live-events?state=bogus").0 == 400)

            let (_, meeting, _) = try await server.joined("carol", meeting: "standup", as: "carol", mode: .SEND_AND_RECV)
            let meetings = try await server.rest("GET", "/v1/meetings").1["items"]?.arrayValue ?? []
            #expect(meetings.first?["meetingId"]?.stringValue == "standup")
            #expect(meetings.first?["participants"]?.arrayValue?.compactMap { $0["mode"]?.stringValue } == ["SEND_AND_RECV"])
            let (endStatus, endedMeeting) = try await server.rest("POST", "/v1/meetings/standup/end")
            #expect(endStatus == 200 && endedMeeting["state"]?.stringValue == "ended" && endedMeeting["participants"]?.arrayValue?.isEmpty == true)
            _ = meeting

            let connections = try await server.rest("GET", "/v1/connections").1
            #expect(connections["node"]?.stringValue == server.server.core.nodeId)
            #expect(Set(connections["connections"]?.arrayValue?.compactMap { $0["userId"]?.stringValue } ?? []) == ["alice", "carol"])

            let creator = try await server.token("erin", grants: [VideoScope.create])
            #expect(try await server.rest("POST", "/v1/videos", body: ["title": "Mine"], key: creator).0 == 201)
            // Creating needs a user to own the video: the key is no client token.
            #expect(try await server.rest("POST", "/v1/videos", body: ["title": "Backend's"]).0 == 401)
            let videos = try await server.rest("GET", "/v1/videos").1["items"]?.arrayValue ?? []
            #expect(videos.compactMap { $0["title"]?.stringValue } == ["Mine"])
        }
    }
}
