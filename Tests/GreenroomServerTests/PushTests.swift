import Crypto
import Foundation
import Greenroom
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Push notifications to members who are not connected, through a local APNs that checks
/// every request the way Apple documents it (HTTP/2, TLS, ES256 provider token, headers,
/// payload) and answers with APNs's statuses.
@Suite("Push notifications through APNs", .wholeRun)
struct PushTests {
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"
    static let topic = "com.example.greenroom"

    /// A device token: 32 bytes of `byte`.
    static func token(_ byte: UInt8) -> Data { Data(repeating: byte, count: 32) }

    /// A local APNs with a certificate from a test authority, and the settings that point a
    /// server at it with a fresh signing key.
    static func apns(_ script: @escaping @Sendable (String, Int) -> APNsTestServer.Answer = { _, _ in .ok })
        async throws -> (APNsTestServer, @Sendable (inout ServerConfiguration) -> Void) {
        let directory = TestServer.makeDataDirectory()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let authority = try TestCertificateAuthority()
        let caPath = "\(directory)/ca.pem"
        try authority.certificatePEM().write(toFile: caPath, atomically: true, encoding: .utf8)
        let (certificate, certificateKey) = try authority.issueServerCertificate(for: "localhost", in: directory)
        let signing = P256.Signing.PrivateKey()
        let keyPath = "\(directory)/AuthKey_\(Self.keyId).p8"
        try signing.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)

        let apns = APNsTestServer(publicKey: signing.publicKey, keyId: Self.keyId, teamId: Self.teamId, topic: Self.topic, script: script)
        let port = try await apns.start(certificate: certificate, key: certificateKey)
        return (apns, { config in
            config.push.keyPath = keyPath
            config.push.keyId = Self.keyId
            config.push.teamId = Self.teamId
            config.push.topic = Self.topic
            config.push.url = "https://localhost:\(port)"
            config.push.caCertificatePath = caPath
            WebhookTests.quickRetries(&config)
        })
    }

    @Test("a message pushes the members who are not connected, on no muted channel, never the sender: JWT, headers and payload as APNs wants them, one provider token reused; 410 and BadDeviceToken remove the device, 429 is retried; the app's template and an invitation push too")
    func pushes() async throws {
        let bob = PushDevice.apn(token: Self.token(0xB1)), carol = PushDevice.apn(token: Self.token(0xC1))
        let dave = PushDevice.apn(token: Self.token(0xD1)), erin = PushDevice.apn(token: Self.token(0xE1))
        let frank = PushDevice.apn(token: Self.token(0xF1)), frankOld = PushDevice.apn(token: Self.token(0xF0))
        let gina = PushDevice.apn(token: Self.token(0x61)), hana = PushDevice.apn(token: Self.token(0x71))
        let (erinId, frankOldId, ginaId) = (erin.id, frankOld.id, gina.id)
        let (apns, configure) = try await Self.apns { token, before in
            switch token {
            case erinId: .status(410, reason: "Unregistered")
            case frankOldId: .status(400, reason: "BadDeviceToken")
            case ginaId where before < 2: .status(429, reason: "TooManyRequests")
            default: .ok
            }
        }
        defer { Task { await apns.stop() } }

        try await withServer(configure) { server in
            let storage = server.server.core.storage
            func online(_ user: String) async throws -> Int {
                try await storage.presenceCount(stream: PushSender.onlineStream(user), clientIdPrefix: "")
            }
            let alice = try await server.client("alice")
            var clients: [String: GreenroomClient] = [:]
            for (user, devices) in [("bob", [bob]), ("carol", [carol]), ("dave", [dave]), ("erin", [erin]), ("frank", [frank, frankOld]),
                                    ("gina", [gina]), ("hana", [hana])] {
                let client = try await server.client(user)
                for device in devices { try await client.currentUserController().addDevice(device) }
                clients[user] = client
            }
            _ = try await clients["hana"]!.setChannelInvitationPreference(autoAccept: false)
            let channel = try await alice.createChannel(id: "push-room", name: "Push room", members: ["bob", "carol", "dave", "erin", "frank", "gina"])
            let room = alice.channelController(for: channel.id)
            try await clients["dave"]!.channelController(for: channel.id).setMyPushTriggerOption(.off)
            #expect(try await clients["dave"]!.channelController(for: channel.id).myPushTriggerOption() == .off)
            // Pushes are per joined member: not for a channel one is not in.
            #expect(await refusal { try await clients["hana"]!.channelController(for: channel.id).setMyPushTriggerOption(.off) } == .notChannelMember)

            // Everyone but carol (and alice, the sender) goes away.
            for user in ["bob", "dave", "erin", "frank", "gina", "hana"] { await clients[user]!.disconnect() }
            try await eventually("the disconnected users are no longer listed online") {
                var total = 0
                for user in ["bob", "dave", "erin", "frank", "gina", "hana"] { total += try await online(user) }
                return total == 0
            }
            #expect(try await online("carol") == 1)
            #expect(try await online("alice") == 1)

            let message = try await room.sendMessage(text: "hello everyone")
            try await eventually("the offline members' devices are pushed, gina's after two 429s") {
                apns.pushes.value.contains { $0.token == gina.id && $0.answered == 200 } && Set(apns.pushes.value.map(\.token)).count >= 5
            }
            try await Task.sleep(for: .milliseconds(300))
            let pushes = apns.pushes.value
            #expect(Set(pushes.map(\.token)) == [bob.id, erin.id, frank.id, frankOld.id, gina.id], "carol is connected, dave muted the channel, alice sent it")
            #expect(pushes.allSatisfy { $0.problems.isEmpty }, "\(pushes.flatMap(\.problems))")
            #expect(pushes.allSatisfy { $0.version == "2.0" })
            #expect(Set(pushes.map(\.jwt)).count == 1, "one provider token for every push")
            #expect(pushes.filter { $0.token == gina.id }.map(\.answered) == [429, 429, 200])
            let toBob = try #require(pushes.first { $0.token == bob.id })
            #expect(toBob.payload["aps"]?["alert"]?["title"]?.stringValue == "Push room")
            #expect(toBob.payload["aps"]?["alert"]?["body"]?.stringValue == "alice: hello everyone")
            #expect(toBob.payload["aps"]?["thread-id"]?.stringValue == "push-room")
            #expect(toBob.payload["channelId"]?.stringValue == "push-room" && toBob.payload["messageId"]?.stringValue == message.id)
            #expect(toBob.headers["apns-collapse-id"] == message.id)

            // APNs no longer knows erin's device, nor frank's old one: they are gone.
            try await eventually("the unknown devices are removed") {
                let erinGone = try await storage.load(DeviceRecord.self, scope: "erin", id: erin.id) == nil
                let frankOldGone = try await storage.load(DeviceRecord.self, scope: "frank", id: frankOld.id) == nil
                return erinGone && frankOldGone
            }
            let frankAgain = try await server.client("frank")
            #expect(try await frankAgain.currentUserController().devices().map(\.id) == [frank.id])
            await frankAgain.disconnect()
            #expect(WebhookTests.metric(server, "greenroom_push_devices_removed_total") == 2)

            // The app's template; a long body is cut.
            #expect(try await server.rest("PUT", "/v1/push/template", body: ["title": ""]).0 == 400)
            let (put, _) = try await server.rest("PUT", "/v1/push/template", body: [
                "title": "New in {{channel.name}}", "body": "{{sender.nickname}} says {{message.text}}",
            ])
            #expect(put == 200)
            let long = String(repeating: "x", count: 300)
            _ = try await room.sendMessage(text: long)
            try await eventually("the long message is pushed to bob") { apns.pushes.value.count { $0.token == bob.id } == 2 }
            let templated = try #require(apns.pushes.value.last { $0.token == bob.id })
            #expect(templated.payload["aps"]?["alert"]?["title"]?.stringValue == "New in Push room")
            let body = templated.payload["aps"]?["alert"]?["body"]?.stringValue ?? ""
            #expect(body.count == PushSender.bodyLimit && body.hasPrefix("alice says xxx") && body.hasSuffix("…"), "\(body)")
            #expect(try await server.rest("DELETE", "/v1/push/template").0 == 204)

            // An invitation pushes the invitee.
            _ = try await room.inviteUserIds(["hana"])
            try await eventually("hana's invitation is pushed") { apns.pushes.value.contains { $0.token == hana.id } }
            let invited = try #require(apns.pushes.value.first { $0.token == hana.id })
            #expect(invited.payload["aps"]?["alert"]?["title"]?.stringValue == "Push room")
            #expect(invited.payload["aps"]?["alert"]?["body"]?.stringValue == "alice invited you")
            #expect(invited.payload["type"]?.stringValue == ChatEventType.channelInvited)
            #expect(!apns.pushes.value.contains { $0.token == dave.id || $0.token == carol.id })
        }
    }

    @Test("a push APNs refuses at every attempt is dropped after the last one: no job is left, nothing is kept where nothing could list it, and no webhook counts it parked")
    func droppedAfterLastAttempt() async throws {
        let device = PushDevice.apn(token: Self.token(0xA7))
        let deviceId = device.id
        let (apns, configure) = try await Self.apns { token, _ in
            token == deviceId ? .status(500, reason: "InternalServerError") : .ok
        }
        defer { Task { await apns.stop() } }

        try await withServer({ config in
            configure(&config)
            config.webhooks.maxAttempts = 3
        }) { server in
            let storage = server.server.core.storage
            let alice = try await server.client("alice")
            let bob = try await server.client("bob")
            try await bob.currentUserController().addDevice(device)
            let channel = try await alice.createChannel(id: "drop-room", name: "Drop room", members: ["bob"])
            await bob.disconnect()
            try await eventually("bob is no longer listed online") {
                try await storage.presenceCount(stream: PushSender.onlineStream("bob"), clientIdPrefix: "") == 0
            }
            _ = try await alice.channelController(for: channel.id).sendMessage(text: "are you there?")
            try await eventually("APNs is asked three times") { apns.pushes.value.count { $0.token == deviceId } == 3 }
            try await eventually("the push's job is gone") {
                try await storage.countRecords(RecordQuery(kind: OutboxJobRecord.recordKind, scope: PushSender.destinationId)) == 0
            }
            #expect(try await storage.countRecords(RecordQuery(kind: WebhookParkedRecord.recordKind, scope: PushSender.destinationId)) == 0)
            try await Task.sleep(for: .milliseconds(500))
            #expect(apns.pushes.value.count { $0.token == deviceId } == 3, "no attempt after the last")
            #expect(apns.pushes.value.allSatisfy { $0.answered == 500 })
            #expect(WebhookTests.metric(server, "greenroom_webhook_parked_total") == 0)
        }
    }

    @Test("two nodes on PostgreSQL: a member connected to the other node is not pushed; one who is connected nowhere is, once")
    func twoNodes() async throws {
        guard let admin = await TestEnvironment.postgres(for: "the two-node push test") else { return }
        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        let directory = TestServer.makeDataDirectory()
        let (apns, configure) = try await Self.apns()
        do {
            let one = try await TestServer.start(dataDirectory: directory) { configure(&$0); $0.databaseURL = url }
            let two = try await TestServer.start(dataDirectory: directory) { configure(&$0); $0.databaseURL = url }
            let bob = PushDevice.apn(token: Self.token(0xB2)), carol = PushDevice.apn(token: Self.token(0xC2))
            let alice = try await one.client("alice")
            let bobClient = try await one.client("bob")
            try await bobClient.currentUserController().addDevice(bob)
            let carolClient = try await two.client("carol")
            try await carolClient.currentUserController().addDevice(carol)
            let channel = try await alice.createChannel(id: "nodes", name: "Nodes", members: ["bob", "carol"])
            await bobClient.disconnect()
            try await eventually("bob is listed nowhere") {
                try await one.server.core.storage.presenceCount(stream: PushSender.onlineStream("bob"), clientIdPrefix: "") == 0
            }
            _ = try await alice.channelController(for: channel.id).sendMessage(text: "across nodes")
            try await eventually("bob is pushed") { apns.pushes.value.contains { $0.token == bob.id } }
            try await Task.sleep(for: .seconds(1))
            #expect(apns.pushes.value.map(\.token) == [bob.id], "carol, on the other node, is connected")
            #expect(apns.pushes.value.allSatisfy { $0.problems.isEmpty })
            await alice.disconnect()
            await carolClient.disconnect()
            try await one.shutdown()
            try await two.shutdown()
        } catch {
            await apns.stop()
            await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
            throw error
        }
        await apns.stop()
        await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
    }
}
