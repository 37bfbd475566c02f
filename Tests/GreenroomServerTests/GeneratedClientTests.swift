// Left out of a build without the generated client (GREENROOM_WITHOUT_GENERATED_CLIENT, Package.swift).
#if !GREENROOM_WITHOUT_GENERATED_CLIENT
import Foundation
@testable import GreenroomGeneratedClient
import GreenroomProtocol
import GreenroomServer
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Testing

/// The REST API as an app's backend sees it through a client generated from
/// docs/openapi.json by swift-openapi-generator (the `GreenroomGeneratedClient` target): every
/// call below is the generator's, with the README's few lines of setup.
@Suite("REST from a generated client", .wholeRun)
struct GeneratedClientTests {
    @Test("users, channels and messages; publishing to app:NAME and user:ID and reading after an offset; paging to the end; an upload; a 404's error body")
    func backendFlow() async throws {
        try await withServer { server in
            let api = Client.greenroom(serverURL: server.url, credential: server.apiKey)
            for id in ["gen-alice", "gen-bob", "gen-carol", "gen-dave", "gen-erin"] {
                let created = try await api.createUser(body: .json(.init(id: id, nickname: id.capitalized))).created.body.json
                #expect(created.id == id)
            }
            // Channels and a message.
            let channel = try await api.createChannel(body: .json(.init(createdBy: "gen-alice", id: "gen.room", name: "Room", members: ["gen-bob"])))
                .created.body.json
            #expect(channel.id == "gen.room" && channel.memberCount == 2)
            let message = try await api.sendMessage(path: .init(id: "gen.room"), body: .json(.init(userId: "gen-alice", text: "hello from a generated client")))
                .created.body.json
            #expect(message.text == "hello from a generated client" && message.channelId == "gen.room")
            // Dates come back as dates.
            #expect(abs(message.createdAt.timeIntervalSinceNow) < 3600)
            let fetched = try await api.getChannel(path: .init(id: "gen.room")).ok.body.json
            #expect(fetched.name == "Room" && fetched.lastMessageAt != nil)

            // Publishing: the generator percent-encodes the ':' of a stream name.
            let first = try await api.publishEvent(path: .init(stream: "app:scores"), body: .json(.init(_type: "score", data: try .init(unvalidatedValue: ["home": 1]))))
                .created.body.json
            let second = try await api.publishEvent(path: .init(stream: "app:scores"), body: .json(.init(_type: "score", data: try .init(unvalidatedValue: ["home": 2]))))
                .created.body.json
            #expect(first.stream == "app:scores" && second.offset == first.offset + 1)
            let toUser = try await api.publishEvent(path: .init(stream: "user:gen-bob"), body: .json(.init(data: try .init(unvalidatedValue: ["hint": "badge"]))))
                .created.body.json
            #expect(toUser.stream == "user:gen-bob")
            let after = try await api.readEvents(path: .init(stream: "app:scores"), query: .init(after: first.offset)).ok.body.json
            #expect(after.map(\.offset) == [second.offset])

            // Paging with `next` until it is null.
            for index in 0..<4 {
                _ = try await api.createChannel(body: .json(.init(createdBy: "gen-bob", id: "gen.page\(index)"))).created
            }
            var channels: [String] = []
            var cursor: String?
            repeat {
                let page = try await api.listChannels(query: .init(limit: 2, cursor: cursor)).ok.body.json
                channels += page.items.map(\.id)
                cursor = page.next
            } while cursor != nil
            #expect(Set(channels) == Set(["gen.room"] + (0..<4).map { "gen.page\($0)" }) && channels.count == 5, "\(channels)")
            var users: [String] = []
            cursor = nil
            repeat {
                let page = try await api.listUsers(query: .init(limit: 2, cursor: cursor)).ok.body.json
                users += page.items.map(\.id)
                cursor = page.next
            } while cursor != nil
            #expect(Set(users).isSuperset(of: ["gen-alice", "gen-bob", "gen-carol", "gen-dave", "gen-erin"]) && Set(users).count == users.count, "\(users)")

            // An upload, with a client token: create, append, complete.
            let token = try await server.token("gen-alice", grants: [VideoScope.create, VideoScope.read])
            let client = Client.greenroom(serverURL: server.url, credential: token)
            let bytes = [UInt8](repeating: 7, count: 4096)
            let ticket = try await client.createVideo(body: .json(.init(title: "clip", size: bytes.count))).created.body.json
            #expect(ticket.offset == 0 && ticket.video.status == .uploading)
            let appended = try await client.appendUpload(path: .init(id: ticket.uploadId), headers: .init(Upload_hyphen_Offset: 0),
                                                         body: .binary(HTTPBody(bytes))).ok.body.json
            #expect(appended.offset == bytes.count)
            let completed = try #require(try await client.completeUpload(path: .init(id: ticket.uploadId)).ok.body.json.value1)
            #expect(completed.id == ticket.video.id && completed.status != .uploading)

            // An attachment through the same upload, sent with a message, read by a member.
            let note = [UInt8]("the minutes".utf8)
            let file = try await client.createFile(body: .json(.init(channelId: "gen.room", name: "minutes.txt", mimeType: "text/plain", size: note.count)))
                .created.body.json
            #expect(file.offset == 0 && !file.file.isUploaded && file.uploadId == file.file.id)
            _ = try await client.appendUpload(path: .init(id: file.uploadId), headers: .init(Upload_hyphen_Offset: 0), body: .binary(HTTPBody(note))).ok
            let uploaded = try #require(try await client.completeUpload(path: .init(id: file.uploadId)).ok.body.json.value2)
            #expect(uploaded.isUploaded && uploaded._type == .file && uploaded.size == note.count)
            let carrying = try await api.sendMessage(path: .init(id: "gen.room"), body: .json(.init(userId: "gen-alice", text: "", attachmentIds: [uploaded.id])))
                .created.body.json
            #expect(carrying.attachments?.map(\.id) == [uploaded.id])
            let member = Client.greenroom(serverURL: server.url, credential: try await server.token("gen-bob"))
            let body = try await member.getFileContent(path: .init(id: uploaded.id)).ok.body.any
            #expect(try await [UInt8](collecting: body, upTo: 1 << 20) == note)
            let outsider = Client.greenroom(serverURL: server.url, credential: try await server.token("gen-carol"))
            switch try await outsider.getFile(path: .init(id: uploaded.id)) {
            case .default(let status, let answer):
                let name = try answer.body.json.error.name
                #expect(status == 403 && name == "notChannelMember")
            default:
                Issue.record("a user outside the channel read its attachment")
            }

            // A 404 reads as the documented error body.
            switch try await api.getChannel(path: .init(id: "gen.nothing")) {
            case .default(let status, let answer):
                let error = try answer.body.json.error
                #expect(status == 404 && error.name == "notFound" && error.code == ErrorCode.notFound.rawValue, "\(status) \(error)")
            default:
                Issue.record("a missing channel was found")
            }
        }
    }

    @Test("moderation from a generated client: a channel ban, a mute, freeze and slow mode, the blocklist, an app-wide ban and its lifting")
    func moderation() async throws {
        try await withServer { server in
            let api = Client.greenroom(serverURL: server.url, credential: server.apiKey)
            for id in ["mod-alice", "mod-bob", "mod-carol"] { _ = try await api.createUser(body: .json(.init(id: id))).created }
            _ = try await api.createChannel(body: .json(.init(createdBy: "mod-alice", id: "mod.room", members: ["mod-bob", "mod-carol"]))).created
            let ban = try await api.banChannelUser(path: .init(id: "mod.room"), body: .json(.init(userId: "mod-bob", seconds: 600, reason: "spam")))
                .created.body.json
            #expect(ban.userId == "mod-bob" && ban.reason == "spam" && ban.bannedBy == nil && ban.expiresAt != nil)
            #expect(try await api.listChannelBans(path: .init(id: "mod.room")).ok.body.json.items.map(\.userId) == ["mod-bob"])
            _ = try await api.unbanChannelUser(path: .init(id: "mod.room", userId: "mod-bob")).noContent
            let muted = try await api.muteChannelMember(path: .init(id: "mod.room"), body: .json(.init(userId: "mod-carol"))).created.body.json
            #expect(muted.mutedUntil != nil)
            #expect(try await api.listChannelMutes(path: .init(id: "mod.room")).ok.body.json.items.map(\.userId) == ["mod-carol"])
            _ = try await api.unmuteChannelMember(path: .init(id: "mod.room", userId: "mod-carol")).noContent
            #expect(try await api.freezeChannel(path: .init(id: "mod.room"), body: .json(.init(frozen: true))).ok.body.json.frozenAt != nil)
            #expect(try await api.setChannelSlowMode(path: .init(id: "mod.room"), body: .json(.init(seconds: 5))).ok.body.json.slowModeSeconds == 5)
            let list = try await api.setBlocklist(body: .json(.init(words: ["Darn"], action: .mask))).ok.body.json
            #expect(list.words == ["darn"] && list.action == .mask)
            #expect(try await api.getBlocklist().ok.body.json.words == ["darn"])
            let sent = try await api.sendMessage(path: .init(id: "mod.room"), body: .json(.init(userId: "mod-alice", text: "darn it"))).created.body.json
            #expect(sent.text == "**** it")

            let userBan = try await api.banUser(path: .init(id: "mod-carol"), body: .json(.init(reason: "abuse"))).created.body.json
            #expect(userBan.userId == "mod-carol" && userBan.expiresAt == nil)
            #expect(try await api.getUserBan(path: .init(id: "mod-carol")).ok.body.json.reason == "abuse")
            #expect(try await server.rest("GET", "/v1/connect", key: try await server.token("mod-carol")).0 == 403)
            _ = try await api.unbanUser(path: .init(id: "mod-carol")).noContent
            switch try await api.getUserBan(path: .init(id: "mod-carol")) {
            case .default(let status, _): #expect(status == 404)
            default: Issue.record("a lifted ban was found")
            }
        }
    }

    @Test("the server's dates need the README's setting: with the runtime's default transcoder the first date fails to decode")
    func datesNeedFractionalSeconds() async throws {
        try await withServer { server in
            let plain = Client(serverURL: server.url, transport: AsyncHTTPClientTransport(), middlewares: [BearerAuthentication(server.apiKey)])
            _ = try await Client.greenroom(serverURL: server.url, credential: server.apiKey)
                .createUser(body: .json(.init(id: "gen-date", nickname: "Date"))).created
            await #expect(throws: (any Error).self) { _ = try await plain.getUser(path: .init(id: "gen-date")).ok.body.json }
        }
    }
}
#endif
