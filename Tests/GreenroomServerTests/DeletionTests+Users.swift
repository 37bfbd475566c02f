import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension DeletionTests {
    @Test("?messages=erase deletes every message the user sent, in channels it left too, from the records and every stored event; keep leaves them")
    func eraseMessagesOfDeletedUser() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "dave", "erin"])
            let alice = users["alice"]!, dave = users["dave"]!, erin = users["erin"]!
            _ = try await alice.createChannel(id: "club", name: "Club", members: ["dave", "erin"], isPublic: false)
            _ = try await alice.createChannel(id: "old", name: "Old", members: ["dave"], isPublic: false)
            let club = dave.channelController(for: "club")
            let first = try await club.sendMessage(text: "dave's first secret", extraData: ["code": "swordfish"])
            _ = try await club.editMessage(messageId: first.id, text: "dave's first secret, edited")
            _ = try await alice.channelController(for: "club").addReaction("wow", messageId: first.id)
            let second = try await club.sendMessage(text: "dave's second secret")
            let alices = try await alice.channelController(for: "club").sendMessage(text: "alice's words")
            let erins = try await erin.channelController(for: "club").sendMessage(text: "erin's words")
            _ = try await dave.channelController(for: "old").sendMessage(text: "dave's old secret")
            try await dave.channelController(for: "old").leave()
            let watching = try await alice.subscribe(to: "channel:club")

            // As if club's messages were sent before sent-in records were kept: found through
            // the membership instead (old's, a channel dave left, only through its record).
            _ = try await server.server.core.events.transact { try await $0.deleteRecord(kind: SentInRecord.recordKind, scope: "dave", id: "club") }
            #expect(try await server.rest("DELETE", "/v1/users/dave?messages=shred").0 == 400)
            #expect(try await server.rest("DELETE", "/v1/users/dave?messages=erase").0 == 204)
            for (stream, text) in [("channel:club", "dave's"), ("channel:club", "swordfish"), ("channel:old", "dave's old")] {
                #expect(try await !Self.storedEvents(server, stream, contain: text), "\(text) is still stored on \(stream)")
            }
            #expect(try await Self.storedEvents(server, "channel:club", contain: "alice's words"))
            let heard = try await collect(watching, count: 3).events
            let deletedIds = heard.filter { $0.type == ChatEventType.messageDeleted }.compactMap { $0.data["message"]?["id"]?.stringValue }
            #expect(Set(deletedIds) == [first.id, second.id], "\(heard.map(\.type))")
            let history = try await alice.channelController(for: "club").loadPreviousMessages(limit: 10).items
            #expect(history.map(\.id) == [first.id, second.id, alices.id, erins.id])
            #expect(history.filter(\.isDeleted).map(\.id) == [first.id, second.id] && history.filter(\.isDeleted).allSatisfy { $0.text.isEmpty })
            #expect(history.first { $0.id == alices.id }?.text == "alice's words")
            #expect(try await server.server.core.storage.records(RecordQuery(kind: SentInRecord.recordKind, scope: "dave")).isEmpty)

            // Keep (the default) leaves erin's messages, emptied of nothing.
            #expect(try await server.rest("DELETE", "/v1/users/erin").0 == 204)
            #expect(try await Self.storedEvents(server, "channel:club", contain: "erin's words"))
        }
    }

    @Test("a deleted user's meeting participant, live event participant and app presence go in the deletion's transaction, and the rooms hear it")
    func deletedUserLeavesRosters() async throws {
        try await withServer { server in
            let (alice, aliceMeeting, host) = try await server.joined("alice", meeting: "stage", as: "alice", mode: .SEND_AND_RECV, grants: ["allow_mod"])
            let (dave, _, _) = try await server.joined("dave", meeting: "stage", as: "dave", mode: .SEND_AND_RECV, grants: ["app:lobby"])
            try await host.wait("alice sees dave") { $0.calls.contains("participantJoined:dave") }
            let lobby = try await server.client("bob", grants: ["app:lobby"])
            _ = try await dave.send(StreamOperation.presenceJoin, args: PresenceJoinArgs(stream: "app:lobby", data: ["mood": "fine"])) as PresenceEntry
            let lobbyEvents = try await lobby.subscribe(to: "app:lobby")

            let params = LiveEvent.CreateParams()
            let liveHost = try await server.client("carol")
            params.userIdsForHost = ["carol"]
            let event = try await liveHost.createLiveEvent(config: params)
            try await event.enterAsHost()
            try await event.setEventReady()
            try await dave.getLiveEvent(id: event.liveEventId).enter()
            let storage = server.server.core.storage
            let liveStream = "live:\(event.liveEventId)"
            #expect(try await storage.presence(stream: liveStream).contains { $0.userId == "dave" })
            #expect(try await storage.record(kind: "meeting-member", scope: "stage", id: "dave") != nil)

            #expect(try await server.rest("DELETE", "/v1/users/dave").0 == 204)
            // Gone as the deletion answers: no grace period, no waiting for an expiry.
            #expect(try await storage.record(kind: "meeting-member", scope: "stage", id: "dave") == nil)
            for stream in ["meeting:stage", "app:lobby", liveStream] {
                #expect(try await !storage.presence(stream: stream).contains { $0.userId == "dave" }, "\(stream)")
            }
            let meeting = try await server.rest("GET", "/v1/meetings/stage").1
            #expect(meeting["participantCount"]?.numberValue == 1, "\(meeting)")
            try await host.wait("alice hears dave left") { $0.calls.contains("participantLeft:dave") }
            let leaving = try await storage.readEvents(stream: "meeting:stage", after: 0, limit: 100).last { $0.type == MeetingEventType.participantLeft }
            #expect(leaving?.data["reason"]?.stringValue == "deleted")
            let left = try await collect(lobbyEvents, count: 1).events
            #expect(left.first?.type == "presence.left" && left.first?.data["reason"]?.stringValue == "deleted", "\(left)")
            let record = try #require(try await storage.load(LiveEventRecord.self, id: event.liveEventId))
            #expect(record.inside == 0)
            withExtendedLifetime((alice, aliceMeeting)) {}
        }
    }
}
