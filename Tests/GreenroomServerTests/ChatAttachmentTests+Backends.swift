import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension ChatAttachmentTests {
    /// One chunk's bytes as the upload's body.
    struct Chunk: AsyncSequence {
        typealias Element = [UInt8]
        let bytes: [UInt8]
        struct AsyncIterator: AsyncIteratorProtocol {
            var bytes: [UInt8]?
            mutating func next() async throws -> [UInt8]? { defer { bytes = nil }; return bytes }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes) }
    }

    @Test("on every backend: the uploader's quota and unsent count follow uploads, sends and deletions; a channel's deletion and the day's sweep take files", arguments: Backend.allCases)
    func quotasAndSweep(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let directory = TestServer.makeDataDirectory()
            let harness = try await DomainRuleTests.Harness(storage: storage) { config in
                config.dataDirectory = directory
                config.fileBytesPerUser = 100
            }
            let capability = ChatCapability(harness.core)
            let (chat, files) = (capability.service, capability.files)
            let alice = Identity(userId: "alice", grants: [], expiresAt: .distantFuture)
            let id = ChannelId("desk")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            _ = try await chat.join(id, userId: "bob")
            func upload(_ text: String) async throws -> ChatAttachment {
                let ticket = try await files.create(FileCreateArgs(channelId: id, name: "a.txt", mimeType: "text/plain", size: Int64(text.utf8.count)), identity: alice)
                #expect(ticket.uploadId == ticket.file.id && ticket.offset == 0 && !ticket.file.isUploaded)
                let reached = try await files.appendUpload(ticket.uploadId, at: 0, body: Chunk(bytes: Array(text.utf8)), identity: alice)
                #expect(reached == Int64(text.utf8.count))
                return try await files.complete(ticket.uploadId, identity: alice)
            }
            func usage() async throws -> (Int64, Int) {
                let record = try await storage.load(FileUsageRecord.self, id: "alice")
                return (record?.bytes ?? 0, record?.unsent ?? 0)
            }

            let first = try await upload(String(repeating: "a", count: 40))
            #expect(try await usage() == (40, 1))
            // Declared sizes count against the quota at once.
            #expect(await refusal { _ = try await files.create(FileCreateArgs(channelId: id, name: "b", mimeType: "text/plain", size: 61), identity: alice) } == .rateLimited)
            let second = try await upload(String(repeating: "b", count: 30))
            let message = try await chat.send(MessageSendArgs(channelId: id, text: "", attachmentIds: [first.id, second.id]), by: "alice")
            #expect(message.attachments?.map(\.id) == [first.id, second.id])
            #expect(try await usage() == (70, 0))
            #expect(try await files.content(first.id, thumbnail: false, identity: Identity(userId: "bob", grants: [], expiresAt: .distantFuture)).size == 40)
            #expect(await refusal { _ = try await files.content(first.id, thumbnail: false, identity: Identity(userId: "eve", grants: [], expiresAt: .distantFuture)) } == .notChannelMember)
            // The backend reads any file.
            #expect(try await files.attachment(first.id, identity: .backend).file.id == first.id)

            _ = try await chat.deleteMessage(MessageRef(channelId: id, messageId: message.id), by: "alice")
            #expect(try await usage() == (0, 0))
            #expect(try await storage.load(FileRecord.self, id: first.id) == nil)
            #expect(!FileManager.default.fileExists(atPath: files.folder(first.id).path))

            // An unsent file lasts a day; a folder whose record is gone is swept too.
            let stale = try await upload("old")
            let orphan = files.folder("forphan")
            try FileManager.default.createDirectory(at: orphan, withIntermediateDirectories: true)
            #expect(try await files.sweep(now: Date().addingTimeInterval(30)) == 0, "young folders are left")
            #expect(try await files.sweep(now: Date().addingTimeInterval(ChatFiles.unsentLifetime + 120)) == 2)
            #expect(try await storage.load(FileRecord.self, id: stale.id) == nil)
            #expect(!FileManager.default.fileExists(atPath: orphan.path) && !FileManager.default.fileExists(atPath: files.folder(stale.id).path))
            #expect(try await usage() == (0, 0))

            // A channel's deletion takes its files and gives back their bytes.
            let kept = try await upload("kept")
            _ = try await chat.send(MessageSendArgs(channelId: id, text: "", attachmentIds: [kept.id]), by: "alice")
            _ = try await upload("loose")
            try await chat.delete(id, by: "alice")
            #expect(try await usage() == (0, 0))
            #expect(try await storage.list(FileRecord.self, RecordQuery(kind: FileRecord.recordKind)).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: files.directory.path).isEmpty)
        }
    }
}

extension MultiNodeTests {
    @Test("an image sent through one node is read through the other by a member only; deleted on the other, it is gone from both")
    func attachmentsAcrossNodes() async throws {
        guard let tools = TestEnvironment.ffmpeg(for: "the multi-node attachment test") else { return }
        try await withCluster { url, directory in
            let configure = { (config: inout ServerConfiguration) in
                config.databaseURL = url
                config.ffmpegPath = tools.ffmpeg
                config.ffprobePath = tools.ffprobe
            }
            let one = try await TestServer.start(dataDirectory: directory, configure)
            let two = try await TestServer.start(dataDirectory: directory, configure)
            let alice = try await one.client("alice")
            let bob = try await two.client("bob")
            let carol = try await two.client("carol")
            _ = try await alice.createChannel(id: "gallery", members: ["bob"])
            let gallery = alice.channelController(for: "gallery")
            let png = try await ChatAttachmentTests.makeImage(tools.ffmpeg)
            let message = try await gallery.sendFileMessage(fileURL: png, text: "the view")
            let file = try #require(message.attachments?.first)
            #expect(file.type == .image && file.width == 640)
            let bobGallery = bob.channelController(for: "gallery")
            try await bobGallery.synchronize()
            #expect(bobGallery.messages.last?.attachments == [file])
            #expect(try await bob.downloadAttachment(file) == (try Data(contentsOf: png)))
            #expect(try await bob.downloadAttachment(file, thumbnail: true).prefix(2) == Data([0xFF, 0xD8]))
            #expect(await refusal { _ = try await carol.downloadAttachment(file, thumbnail: true) } == .notChannelMember)
            let aliceOnTwo = try await two.client("alice")
            #expect(try await aliceOnTwo.channelController(for: "gallery").deleteMessage(messageId: message.id).attachments == nil)
            #expect(await refusal { _ = try await alice.downloadAttachment(file) } == .notFound)
            #expect(!FileManager.default.fileExists(atPath: URL(fileURLWithPath: directory).appendingPathComponent("files/\(file.id)").path))
            await one.disconnectClients()
            await two.disconnectClients()
            try await one.shutdown()
            try await two.shutdown()
        }
    }
}
