import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension MultiNodeTests {
    @Test("bans across two nodes: an app-wide ban on one closes the user's connections on both and refuses its tokens on each until lifted; a channel ban on one removes the member on the other; the blocklist set on one holds on the other")
    func bansAcrossNodes() async throws {
        try await withCluster { url, directory in
            let one = try await node(url, directory)
            let two = try await node(url, directory)
            let alice = try await one.client("alice")
            let carol = try await two.client("carol")
            let malloryOnOne = try await one.client("mallory")
            let malloryOnTwo = try await two.client("mallory")
            _ = try await alice.createChannel(id: "plaza", name: "Plaza", members: ["carol", "mallory"], isPublic: true)

            // App-wide.
            let (status, body) = try await two.rest("POST", "/v1/users/mallory/ban", body: ["seconds": 3_600, "reason": "abuse"])
            #expect(status == 201 && body["reason"]?.stringValue == "abuse" && body["expiresAt"]?.stringValue != nil, "\(body)")
            try await eventually("mallory's connections on both nodes are closed") {
                DeletionTests.stoppedAsForbidden(malloryOnOne) && DeletionTests.stoppedAsForbidden(malloryOnTwo)
            }
            for node in [one, two] {
                let (refused, refusal) = try await node.rest("GET", "/v1/connect", key: try await node.token("mallory"))
                #expect(refused == 403 && refusal["error"]?["name"]?.stringValue == "userBanned", "\(refusal)")
            }
            let again = GreenroomClient(serverURL: one.url)
            do {
                try await again.connect(token: try await one.token("mallory"))
                Issue.record("a banned user connected")
            } catch let error as GreenroomError {
                #expect(error.is(.userBanned), "\(error)")
            }
            #expect(try await one.rest("GET", "/v1/users/mallory/ban").1["reason"]?.stringValue == "abuse")
            #expect(try await one.rest("DELETE", "/v1/users/mallory/ban").0 == 204)
            #expect(try await one.rest("GET", "/v1/users/mallory/ban").0 == 404)
            #expect(try await two.rest("GET", "/v1/connect", key: try await two.token("mallory")).0 == 200)

            // A channel ban by an operator on node one, felt on node two.
            let carolRoom = carol.channelController(for: "plaza")
            try await carolRoom.synchronize()
            let ban = try await alice.channelController(for: "plaza").banUser(userId: "carol", seconds: 600, description: "flooding")
            #expect(ban.bannedBy == "alice")
            try await eventually("carol's controller on node two sees her removed") { carolRoom.channel?.membership == nil }
            #expect(await refusal { _ = try await carolRoom.join() } == .bannedFromChannel)
            #expect(try await two.rest("GET", "/v1/channels/plaza/bans").1["items"]?[0]?["userId"]?.stringValue == "carol")
            #expect(try await two.rest("DELETE", "/v1/channels/plaza/bans/carol").0 == 204)
            _ = try await carolRoom.join()

            // Alice blocks carol: carol's messages reach alice's controller neither live nor in a page.
            let aliceRoom = alice.channelController(for: "plaza")
            try await aliceRoom.synchronize()
            _ = try await alice.blockUser(userId: "carol")
            _ = try await carolRoom.sendMessage(text: "from carol")
            _ = try await alice.channelController(for: "plaza").sendMessage(text: "from alice")
            try await eventually("alice's own message arrives") { aliceRoom.messages.last?.text == "from alice" }
            #expect(!aliceRoom.messages.contains { $0.senderId == "carol" })
            let fresh = try await one.client("alice")
            let freshRoom = fresh.channelController(for: "plaza")
            try await freshRoom.synchronize()
            #expect(freshRoom.messages.map(\.text) == ["from alice"], "the server leaves carol's message out of alice's page")
            #expect(try await fresh.loadBlockedUsers().items.map(\.userId) == ["carol"] && fresh.isBlocked(userId: "carol"))
            await fresh.disconnect()

            // The blocklist, set through node one, refuses on node two at once.
            let (set, list) = try await one.rest("PUT", "/v1/moderation/blocklist", body: ["words": ["spoiler"], "action": "refuse"])
            #expect(set == 200 && list["words"] == ["spoiler"], "\(list)")
            #expect(await refusal { _ = try await carolRoom.sendMessage(text: "SPOILER: he was dead") } == .messageBlocked)
            for client in [alice, carol] { await client.disconnect() }
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
