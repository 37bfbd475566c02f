import Foundation
import Greenroom
import GreenroomServer
import Testing

extension ChatTests {
    @Test("the backend's REST API (seed 002's server-side SDK): channels with members and operators, partial updates of channels and messages, messages sent as a user; members hear each change; the WebSocket's limits and refusals")
    func backendREST() async throws {
        try await withServer { server in
            try await server.createUsers(["owner", "bob", "carol", "dave"])
            let bob = try await server.client("bob")

            // Create, with members, operators and extra data.
            let (created, channel) = try await server.rest("POST", "/v1/channels", body: [
                "id": "deals", "createdBy": "owner", "name": "Deals", "members": ["bob", "carol"], "operators": ["carol"],
                "extraData": ["region": "EU", "tier": 2],
            ])
            #expect(created == 201, "\(channel)")
            #expect(channel["id"]?.stringValue == "deals" && channel["memberCount"]?.doubleValue == 3)
            #expect(channel["extraData"] == ["region": "EU", "tier": 2] && channel["createdBy"]?.stringValue == "owner")
            let operators = try await bob.channelController(for: "deals").loadMembers(filter: .operators).items.map(\.userId)
            #expect(operators == ["carol", "owner"])

            let room = bob.channelController(for: "deals")
            try await room.synchronize()
            let events = room.events

            // Partial update of the channel's extra data; bob hears channel.updated.
            let (patched, updated) = try await server.rest("PATCH", "/v1/channels/deals", body: ["extraData": ["tier": 3, "note": "gold"], "unset": ["region"]])
            #expect(patched == 200, "\(updated)")
            #expect(updated["extraData"] == ["tier": 3, "note": "gold"])
            #expect(try await bob.channel("deals").extraData == ["tier": 3, "note": "gold"])

            // A message sent as carol, then partially updated by the backend.
            let (sent, message) = try await server.rest("POST", "/v1/channels/deals/messages", body: [
                "userId": "carol", "text": "Half price today", "extraData": ["sku": "A-1", "price": 10],
            ])
            #expect(sent == 201, "\(message)")
            #expect(message["senderId"]?.stringValue == "carol" && message["sequence"]?.doubleValue == 1)
            let messageId = try #require(message["id"]?.stringValue)
            let (edited, changed) = try await server.rest("PATCH", "/v1/channels/deals/messages/\(messageId)", body: [
                "extraData": ["price": 8], "unsetProperties": ["sku"],
            ])
            #expect(edited == 200, "\(changed)")
            #expect(changed["extraData"] == ["price": 8] && changed["text"]?.stringValue == "Half price today")

            let seen = try await chatEvents(events) { $0.count == 3 }
            #expect(seen.map(\.type) == [ChatEventType.channelUpdated, ChatEventType.messageNew, ChatEventType.messageUpdated])
            #expect(seen[1].message?.id == messageId && seen[2].message?.extraData == ["price": 8])
            let (read, got) = try await server.rest("GET", "/v1/channels/deals")
            #expect(read == 200 && got["name"]?.stringValue == "Deals")

            // Refusals, with the WebSocket's codes and limits; nothing stored.
            func refusal(_ method: String, _ path: String, _ body: RawJSON?, key: String? = nil) async throws -> (Int, String?) {
                let (status, error) = try await server.rest(method, path, body: body, key: key)
                return (status, error["error"]?["name"]?.stringValue)
            }
            #expect(try await refusal("POST", "/v1/channels", ["id": "x", "createdBy": "owner"], key: "wrong") == (401, "invalidToken"))
            #expect(try await refusal("POST", "/v1/channels", ["id": "x"]) == (400, "invalidParameterValue"))
            #expect(try await refusal("POST", "/v1/channels", ["id": "x", "createdBy": "nobody"]) == (404, "notFound"))
            #expect(try await refusal("POST", "/v1/channels", ["id": "deals", "createdBy": "owner"]) == (409, "alreadyExists"))
            #expect(try await refusal("POST", "/v1/channels", ["id": "x", "createdBy": "owner", "members": ["ghost"]]) == (404, "notFound"))
            #expect(try await refusal("POST", "/v1/channels", ["id": "x", "createdBy": "owner", "operators": ["bob"]]) == (403, "notChannelMember"))
            #expect(try await refusal("POST", "/v1/channels", "not an object") == (400, "invalidParameterValue"))
            #expect(try await refusal("PATCH", "/v1/channels/none", ["name": "x"]) == (404, "notFound"))
            #expect(try await refusal("PATCH", "/v1/channels/deals", ["extraData": ["a": 1], "unset": ["a"]]) == (400, "invalidParameterValue"))
            let big = RawJSON.string(String(repeating: "x", count: 9_000))
            #expect(try await refusal("PATCH", "/v1/channels/deals", ["extraData": ["blob": big]]) == (413, "payloadTooLarge"))
            #expect(try await refusal("POST", "/v1/channels/deals/messages", ["text": "who?"]) == (400, "invalidParameterValue"))
            #expect(try await refusal("POST", "/v1/channels/deals/messages", ["userId": "dave", "text": "hi"]) == (403, "notChannelMember"))
            #expect(try await refusal("POST", "/v1/channels/deals/messages", ["userId": "bob"]) == (400, "invalidParameterValue"))
            #expect(try await refusal("POST", "/v1/channels/deals/messages", ["userId": "bob", "text": "x", "extraData": ["blob": big]]) == (413, "payloadTooLarge"))
            #expect(try await refusal("PATCH", "/v1/channels/deals/messages/m-none", ["text": "x"]) == (404, "messageNotFound"))
            #expect(try await refusal("PATCH", "/v1/channels/deals/messages/\(messageId)", ["unsetProperties": ["text"]]) == (400, "invalidParameterValue"))
            let history = try await server.client("carol").channelController(for: "deals").loadPreviousMessages(limit: 10).items
            #expect(history.count == 1 && history[0].extraData == ["price": 8])
            #expect(try await bob.channel("deals").extraData == ["tier": 3, "note": "gold"])
        }
    }
}
