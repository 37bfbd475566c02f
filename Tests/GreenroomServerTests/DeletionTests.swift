import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Deleted means gone from everything a client can still read: a deleted channel's
/// history, a deleted message's text, a deleted user's memberships and tokens.
@Suite("Deleted stays deleted", .wholeRun)
struct DeletionTests {
    /// Whether any stored event of `stream` holds `text` anywhere in its data.
    static func storedEvents(_ server: TestServer, _ stream: String, contain text: String) async throws -> Bool {
        let events = try await server.server.core.storage.readEvents(stream: stream, after: 0, limit: 10_000)
        return try events.contains { try $0.data.jsonString().contains(text) }
    }

    /// Whether `client` was told to stop with the refusal a deleted or revoked user gets.
    static func stoppedAsForbidden(_ client: GreenroomClient) -> Bool {
        if case .disconnected(let reason) = client.connectionState { return reason?.is(.permissionDenied) == true }
        return false
    }

    @Test("a recreated channel id reads nothing of the deleted channel: not its messages, not its deletion")
    func recreatedChannelReadsNothing() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob", "mallory"])
            let alice = users["alice"]!, mallory = users["mallory"]!
            _ = try await alice.createChannel(id: "secret", name: "Secret", members: ["bob"], isPublic: false)
            _ = try await alice.channelController(for: "secret").sendMessage(text: "classified plan")
            let before = try await alice.subscribe(to: "channel:secret")
            try await alice.channelController(for: "secret").deleteChannel()
            // Members following the channel still hear of its deletion, live.
            let heard = try await collect(before, count: 1).events
            #expect(heard.map(\.type) == [ChatEventType.channelDeleted])

            _ = try await mallory.createChannel(id: "secret", name: "Mine", isPublic: false)
            #expect(try await !Self.storedEvents(server, "channel:secret", contain: "classified plan"))
            let replay = try await mallory.subscribe(to: "channel:secret", since: StreamPosition(offset: 0, epoch: nil))
            let marker = try await mallory.channelController(for: "secret").sendMessage(text: "mine now")
            let seen = try await collect(replay, count: 1).events
            #expect(seen.map(\.type) == [ChatEventType.messageNew])
            #expect(seen.first?.data["message"]?["id"]?.stringValue == marker.id)
            let all = try await server.server.core.storage.readEvents(stream: "channel:secret", after: 0, limit: 100)
            #expect(!all.contains { $0.type == ChatEventType.channelDeleted || $0.data["message"]?["text"]?.stringValue == "classified plan" })
            // A resume from the old channel's position is told it was not recovered.
            let old = try #require(heard.first)
            #expect(try await server.server.core.storage.streamInfo("channel:secret").epoch != old.epoch)
            try await mallory.channelController(for: "secret").inviteUserIds(["bob"])
            let resumed = try await users["bob"]!.subscribe(to: "channel:secret", since: StreamPosition(offset: old.offset, epoch: old.epoch))
                .recovered
            #expect(resumed == false)
        }
    }

    @Test("a deleted message's text and extra data are in no event a member can replay, a later joiner's included")
    func deletedMessageIsRedacted() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "bob", "carol"])
            let alice = users["alice"]!, bob = users["bob"]!, carol = users["carol"]!
            _ = try await alice.createChannel(id: "club", name: "Club", members: ["bob"], isPublic: true)
            let room = alice.channelController(for: "club")
            let kept = try await room.sendMessage(text: "kept words")
            let secret = try await room.sendMessage(text: "classified plan", extraData: ["code": "swordfish"])
            _ = try await room.editMessage(messageId: secret.id, text: "classified plan v2")
            _ = try await bob.channelController(for: "club").addReaction("wow", messageId: secret.id, extraData: ["note": "sharkfin"])
            let deleted = try await room.deleteMessage(messageId: secret.id)
            #expect(deleted.isDeleted && deleted.text.isEmpty)

            for text in ["classified plan", "swordfish", "sharkfin"] {
                #expect(try await !Self.storedEvents(server, "channel:club", contain: text), "\(text) is still stored")
            }
            _ = try await carol.channelController(for: "club").join()
            let replay = try await carol.subscribe(to: "channel:club", since: StreamPosition(offset: 0, epoch: nil))
            let marker = try await room.sendMessage(text: "after")
            var events: [StreamEvent] = []
            while events.last?.data["message"]?["id"]?.stringValue != marker.id {
                events += try await collect(replay, count: 1).events
            }
            let replayed = try events.map { try $0.data.jsonString() }.joined(separator: "\n")
            #expect(!replayed.contains("classified") && !replayed.contains("swordfish") && !replayed.contains("sharkfin"))
            // The message keeps its place, emptied, and the other message is untouched.
            #expect(events.contains { $0.type == ChatEventType.messageNew && $0.data["message"]?["id"]?.stringValue == secret.id })
            #expect(events.contains { $0.data["message"]?["text"]?.stringValue == "kept words" && $0.data["message"]?["id"]?.stringValue == kept.id })
        }
    }

    @Test("a deleted user is out: its memberships and operator roles go, members hear it, its connections close with 4101, its tokens are refused, and a token issued afterwards starts over")
    func deletedUserIsOut() async throws {
        try await withServer { server in
            let users = try await server.clients(["alice", "dave"])
            let alice = users["alice"]!, dave = users["dave"]!
            let oldToken = try await server.token("dave")
            _ = try await alice.createChannel(id: "club", name: "Club", members: ["dave"], isPublic: false)
            _ = try await dave.createChannel(id: "daves", name: "Dave's", members: ["alice"], isPublic: false)
            try await alice.channelController(for: "club").addOperators(userIds: ["dave"])
            let club = try await alice.subscribe(to: "channel:club")

            let (status, _) = try await server.rest("DELETE", "/v1/users/dave")
            #expect(status == 204)
            try await eventually("dave's connection is closed as forbidden") { Self.stoppedAsForbidden(dave) }
            let left = try await collect(club, count: 1).events
            #expect(left.map(\.type) == [ChatEventType.memberLeft] && left.first?.data["member"]?["userId"]?.stringValue == "dave")
            #expect(try await alice.channelController(for: "club").loadMembers().items.map(\.userId) == ["alice"])
            #expect(try await alice.channelController(for: "daves").loadMembers().items.map(\.userId) == ["alice"])
            #expect(try await alice.channel("club").memberCount == 1)
            let storage = server.server.core.storage
            #expect(try await storage.records(RecordQuery(kind: "membership", scope: "dave")).isEmpty)

            // The old token: refused over REST, before the upgrade, and by the SDK.
            let socket = try RawSocket(port: server.port)
            let (upgrade, body) = try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(oldToken)"])
            #expect(upgrade == 401 && body.contains("tokenRevoked"), "\(upgrade) \(body)")
            let again = GreenroomClient(serverURL: server.url)
            await #expect(throws: GreenroomError.self) { try await again.connect(token: oldToken) }
            #expect(try await server.rest("GET", "/v1/users/dave").0 == 404)

            // A token issued now makes dave anew, with nothing of before.
            let fresh = try await server.client("dave")
            #expect(await refusal { _ = try await fresh.subscribe(to: "channel:club") } == .notChannelMember)
            #expect(await refusal { try await fresh.channelController(for: "club").sendMessage(text: "still here?") } == .notChannelMember)
        }
    }

    @Test("revoking a user's tokens closes its connections and refuses every earlier token; later ones work")
    func revokeTokens() async throws {
        try await withServer { server in
            let phone = try await server.client("erin")
            let stolen = try await server.token("erin")
            let (status, body) = try await server.rest("POST", "/v1/users/erin/revoke-tokens")
            #expect(status == 200 && body["userId"]?.stringValue == "erin" && body["notBefore"]?.stringValue != nil, "\(body)")
            try await eventually("the revoked connection is closed") { Self.stoppedAsForbidden(phone) }
            let (refused, refusedBody) = try await server.rest("GET", "/v1/connect", key: stolen)
            #expect(refused == 401 && refusedBody["error"]?["name"]?.stringValue == "tokenRevoked", "\(refusedBody)")
            let fresh = try await server.client("erin")
            #expect(try await fresh.currentUserController().currentUser().id == "erin")
            #expect(try await server.rest("POST", "/v1/users/nobody/revoke-tokens").0 == 404)
            #expect(try await server.rest("POST", "/v1/users/erin/revoke-tokens", key: stolen).0 == 401)
        }
    }

    @Test("a token that lives longer than --max-token-lifetime is refused")
    func maxTokenLifetime() async throws {
        try await withServer({ $0.maxTokenLifetime = 3_600 }) { server in
            let long = try await server.token("frank", ttl: 7_200)
            let (status, body) = try await server.rest("GET", "/v1/connect", key: long)
            #expect(status == 401 && body["error"]?["name"]?.stringValue == "invalidToken", "\(body)")
            let short = try await server.token("frank", ttl: 600)
            #expect(try await server.rest("GET", "/v1/connect", key: short).0 == 200)
        }
    }
}
