import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Chat attachments through the real server and the SDK: resumable uploads, images read by
/// ffprobe with thumbnails from ffmpeg, files only for the channel's members, and gone with
/// their message or channel.
@Suite("Chat attachments: uploads, images, member-only reading, removal", .wholeRun)
struct ChatAttachmentTests {
    /// A 640×480 PNG made by ffmpeg's test source.
    static func makeImage(_ ffmpeg: String) async throws -> URL {
        let url = TemporaryPaths.make(".png")
        let made = try await ChildProcess.run(ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=640x480", "-frames:v", "1", url.path])
        #expect(made.exit.succeeded, "\(String(decoding: made.errors, as: UTF8.self))")
        return url
    }

    /// A file of `text`, named `name`.
    static func makeFile(_ name: String, _ text: String) throws -> URL {
        let folder = TemporaryPaths.makeDirectory()
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    /// A GET of `url` (with `token` as bearer when given): the status, the headers and the bytes.
    static func get(_ url: URL, token: String? = nil, range: String? = nil) async throws -> (status: Int, headers: [AnyHashable: Any], data: Data) {
        var request = URLRequest(url: url)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let range { request.setValue(range, forHTTPHeaderField: "Range") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.allHeaderFields, data)
    }

    /// The width and height ffprobe reads in an image.
    static func size(of data: Data, ffprobe: String) async throws -> (Int, Int) {
        let url = TemporaryPaths.make(".jpg")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let probe = try await ChildProcess.run(ffprobe, ["-v", "error", "-print_format", "json", "-show_streams", url.path])
        let stream = try RawJSON(json: probe.output)["streams"]?.arrayValue?.first
        return (Int(stream?["width"]?.numberValue ?? 0), Int(stream?["height"]?.numberValue ?? 0))
    }

    @Test("an image and its thumbnail: read by the channel's members (token or ?token=), refused to anyone else; gone with its message, and a channel's files with the channel")
    func imageForMembersOnly() async throws {
        guard let tools = TestEnvironment.ffmpeg(for: "the chat attachment tests") else { return }
        try await withServer({ config in
            config.ffmpegPath = tools.ffmpeg
            config.ffprobePath = tools.ffprobe
        }) { server in
            let users = try await server.clients(["alice", "bob", "carol"])
            let (alice, bob, carol) = (users["alice"]!, users["bob"]!, users["carol"]!)
            _ = try await alice.createChannel(id: "photos", members: ["bob"])
            let photos = alice.channelController(for: "photos")
            try await photos.synchronize()
            let bobPhotos = bob.channelController(for: "photos")
            try await bobPhotos.synchronize()
            let bobEvents = bobPhotos.events

            let png = try await Self.makeImage(tools.ffmpeg)
            let original = try Data(contentsOf: png)
            let fractions = Locked<[Double]>([])
            let file = try await photos.uploadAttachment(fileURL: png, chunkSize: max(1, original.count / 3)) { fraction in
                fractions.withLock { $0.append(fraction) }
            }
            #expect(file.type == .image && file.mimeType == "image/png" && file.width == 640 && file.height == 480)
            #expect(file.size == Int64(original.count) && file.isUploaded && file.uploadedBy == "alice" && file.channelId == "photos")
            #expect(file.url == "/v1/files/\(file.id)/file" && file.thumbnailURL == "/v1/files/\(file.id)/thumbnail")
            #expect(fractions.value.count >= 3 && fractions.value.last == 1, "\(fractions.value)")
            // Before it is sent, only its uploader reads it.
            #expect(try await alice.downloadAttachment(file) == original)
            #expect(await refusal { _ = try await bob.downloadAttachment(file) } == .notFound)

            let message = try await photos.sendMessage(attachmentIds: [file.id])
            #expect(message.text.isEmpty && message.attachments == [file])
            let heard = try await chatEvents(bobEvents) { $0.contains { $0.type == ChatEventType.messageNew } }
            #expect(heard.last?.message?.attachments?.first?.id == file.id)

            // A member reads the bytes, a range of them, and the thumbnail.
            #expect(try await bob.downloadAttachment(file) == original)
            let thumbnail = try await bob.downloadAttachment(file, thumbnail: true)
            #expect(thumbnail.prefix(2) == Data([0xFF, 0xD8]), "a JPEG")
            let (width, height) = try await Self.size(of: thumbnail, ffprobe: tools.ffprobe)
            #expect(width == 320 && height == 240)
            let bobToken = try await server.token("bob")
            let ranged = try await Self.get(URL(string: file.url, relativeTo: server.url)!, token: bobToken, range: "bytes=0-9")
            #expect(ranged.status == 206 && ranged.data == original.prefix(10))
            // An image view's URL carries a token for this file alone.
            let viewURL = try #require(try await bob.attachmentURL(for: file, thumbnail: true))
            #expect(viewURL.query?.hasPrefix("token=") == true && !viewURL.absoluteString.contains(bobToken))
            let viewed = try await Self.get(viewURL)
            #expect(viewed.status == 200 && viewed.data == thumbnail)
            #expect((viewed.headers["Content-Type"] as? String) == "image/jpeg")
            #expect((viewed.headers["X-Content-Type-Options"] as? String) == "nosniff")
            let served = try await Self.get(try #require(try await bob.attachmentURL(for: file)))
            #expect(served.status == 200 && (served.headers["Content-Type"] as? String) == "image/png")

            // Anyone else is refused: another user, with its token or a URL of its own, and no one at all.
            #expect(await refusal { _ = try await carol.downloadAttachment(file) } == .notChannelMember)
            #expect(await refusal { _ = try await carol.downloadAttachment(file, thumbnail: true) } == .notChannelMember)
            let carolURL = try #require(try await carol.attachmentURL(for: file))
            #expect(try await Self.get(carolURL).status == 403)
            #expect(try await Self.get(URL(string: file.thumbnailURL!, relativeTo: server.url)!).status == 401)
            // A file's token is good for that file alone.
            var elsewhere = try #require(URLComponents(url: viewURL, resolvingAgainstBaseURL: false))
            elsewhere.path = "/v1/files/fnothere/file"
            #expect(try await Self.get(try #require(elsewhere.url)).status == 401)
            // Leaving the channel ends reading it.
            try await bobPhotos.leave()
            #expect(await refusal { _ = try await bob.downloadAttachment(file) } == .notChannelMember)

            // A message's deletion removes its files: records, bytes on disk, and the copies in its events.
            let folder = URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("files/\(file.id)")
            #expect(FileManager.default.fileExists(atPath: folder.path))
            let deleted = try await photos.deleteMessage(messageId: message.id)
            #expect(deleted.attachments == nil)
            #expect(await refusal { _ = try await alice.downloadAttachment(file) } == .notFound)
            #expect(!FileManager.default.fileExists(atPath: folder.path))
            let history = try await photos.loadPreviousMessages()
            #expect(history.items.first { $0.id == message.id }?.attachments == nil)

            // A channel's deletion removes every file of it, sent or not.
            let sent = try await photos.uploadAttachment(fileURL: png)
            _ = try await photos.sendMessage(text: "again", attachmentIds: [sent.id])
            let unsent = try await photos.uploadAttachment(fileURL: png)
            try await photos.deleteChannel()
            for id in [sent.id, unsent.id] {
                #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("files/\(id)").path))
                let (status, _) = try await server.rest("GET", "/v1/files/\(id)")
                #expect(status == 404)
            }
        }
    }

    @Test("limits: a type the server does not take, a file over its size, an image that is not one, someone else's file, a file sent twice, and the unsent count")
    func limits() async throws {
        guard let tools = TestEnvironment.ffmpeg(for: "the chat attachment tests") else { return }
        try await withServer({ config in
            config.ffmpegPath = tools.ffmpeg
            config.ffprobePath = tools.ffprobe
            config.fileMaxBytes = 1_000
            config.fileTypes = ["image/*", "text/plain"]
            config.filePendingPerUser = 3
        }) { server in
            let users = try await server.clients(["alice", "bob", "carol"])
            let (alice, bob, carol) = (users["alice"]!, users["bob"]!, users["carol"]!)
            _ = try await alice.createChannel(id: "docs", members: ["bob"])
            let docs = alice.channelController(for: "docs")
            let note = try Self.makeFile("note.txt", "the minutes")

            #expect(await refusal { _ = try await docs.uploadAttachment(fileURL: note, mimeType: "application/x-msdownload") } == .fileTypeNotAllowed)
            #expect(await refusal { _ = try await docs.uploadAttachment(fileURL: Self.makeFile("big.txt", String(repeating: "x", count: 1_001))) } == .payloadTooLarge)
            #expect(await refusal { _ = try await docs.uploadAttachment(fileURL: Self.makeFile("fake.png", "not a picture")) } == .fileTypeNotAllowed)
            #expect(await refusal { _ = try await docs.uploadAttachment(fileURL: note, name: "../etc/passwd") } == .invalidParameterValue)
            #expect(await refusal { _ = try await carol.channelController(for: "docs").uploadAttachment(fileURL: note) } == .notChannelMember)
            let files = try FileManager.default.contentsOfDirectory(atPath: URL(fileURLWithPath: server.dataDirectory).appendingPathComponent("files").path)
            #expect(files.isEmpty, "refused uploads leave nothing: \(files)")

            let file = try await docs.uploadAttachment(fileURL: note)
            #expect(file.type == .file && file.mimeType == "text/plain" && file.thumbnailURL == nil)
            #expect(await refusal { _ = try await bob.channelController(for: "docs").sendMessage(attachmentIds: [file.id]) } == .invalidParameterValue)
            #expect(await refusal { _ = try await docs.sendMessage(attachmentIds: Array(repeating: file.id, count: 1) + (1...10).map { "f\($0)" }) } == .invalidParameterValue)
            let message = try await docs.sendMessage(text: "minutes", attachmentIds: [file.id])
            #expect(message.attachments?.map(\.name) == ["note.txt"])
            #expect(await refusal { _ = try await docs.sendMessage(attachmentIds: [file.id]) } == .invalidParameterValue)
            // A file is served as a download, whatever its type.
            let served = try await Self.get(URL(string: file.url, relativeTo: server.url)!, token: try await server.token("bob"))
            #expect(served.status == 200 && served.data == Data("the minutes".utf8))
            #expect((served.headers["Content-Disposition"] as? String)?.hasPrefix("attachment; filename=\"note.txt\"") == true)
            #expect((served.headers["Content-Security-Policy"] as? String)?.hasPrefix("sandbox") == true)

            // At most three unsent at once; sending one makes room.
            var unsent: [ChatAttachment] = []
            for _ in 1...3 { unsent.append(try await docs.uploadAttachment(fileURL: note)) }
            #expect(await refusal { _ = try await docs.uploadAttachment(fileURL: note) } == .rateLimited)
            _ = try await docs.sendMessage(attachmentIds: [unsent[0].id])
            _ = try await docs.uploadAttachment(fileURL: note)
        }
    }
}
