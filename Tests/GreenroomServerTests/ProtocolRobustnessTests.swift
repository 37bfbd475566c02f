import Foundation
import Greenroom
import GreenroomServer
import Testing

@Suite("Bad frames get clear errors and the connection survives", .wholeRun)
struct ProtocolRobustnessTests {
    func connectRaw(_ server: TestServer, _ user: String) async throws -> RawSocket {
        let socket = try RawSocket(port: server.port)
        let token = try await server.token(user)
        let (status, _) = try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"])
        #expect(status == 101)
        return socket
    }

    func reply(_ socket: RawSocket, to text: String) async throws -> RawJSON {
        try socket.sendText(text)
        return try RawJSON(json: try await socket.readText())
    }

    @Test("integers out of range, on REST and over the WebSocket, get invalidParameterValue and the node lives on")
    func integersOutOfRange() async throws {
        try await withServer { server in
            _ = try await server.server.publish(stream: "app:x", data: ["n": 1])
            for query in ["after=9223372036854775808", "after=18446744073709551615", "after=99999999999999999999999",
                          "after=-1", "after=ten", "limit=0", "limit=-5", "limit=1001", "limit=9223372036854775808", "limit=1e9"] {
                let (status, body) = try await server.rest("GET", "/v1/streams/app:x/events?\(query)")
                #expect(status == 400, "\(query) → \(status)")
                #expect(body["error"]?["name"]?.stringValue == "invalidParameterValue", "\(query) → \(body)")
            }
            let (ok, events) = try await server.rest("GET", "/v1/streams/app:x/events?after=9223372036854775807&limit=1000")
            #expect(ok == 200 && events.arrayValue?.isEmpty == true)
            let (first, page) = try await server.rest("GET", "/v1/streams/app:x/events?after=0&limit=1")
            #expect(first == 200 && page.arrayValue?.count == 1)

            let socket = try await connectRaw(server, "alice")
            let frames = [
                #"{"id":1,"op":"user.list","args":{"limit":1e30}}"#,
                #"{"id":2,"op":"user.list","args":{"limit":-1}}"#,
                #"{"id":3,"op":"user.list","args":{"limit":18446744073709551616}}"#,
                #"{"id":4,"op":"stream.subscribe","args":{"stream":"user:alice","since":{"offset":18446744073709551616}}}"#,
                #"{"id":5,"op":"stream.subscribe","args":{"stream":"user:alice","since":{"offset":-1}}}"#,
                #"{"id":6,"op":"stream.subscribe","args":{"stream":"user:alice","since":{"offset":1.5}}}"#,
                #"{"id":7,"op":"message.list","args":{"channelId":"c","limit":1e300}}"#,
            ]
            for (index, frame) in frames.enumerated() {
                let answer = try await reply(socket, to: frame)
                #expect(answer["re"]?.numberValue == Double(index + 1), "\(frame) → \(answer)")
                #expect(answer["error"]?["name"]?.stringValue == "invalidParameterValue", "\(frame) → \(answer)")
            }
            // An offset far past the head (2^63, the largest a JSON number carries exactly
            // near there): not resumable, and no trap.
            let far = try await reply(socket, to: #"{"id":8,"op":"stream.subscribe","args":{"stream":"user:alice","since":{"offset":9223372036854775808}}}"#)
            #expect(far["re"]?.numberValue == 8 && far["result"]?["recovered"]?.boolValue == false, "\(far)")
            let me = try await reply(socket, to: #"{"id":9,"op":"user.me"}"#)
            #expect(me["result"]?["id"]?.stringValue == "alice")
        }
    }

    @Test("malformed JSON, non-commands, unknown operations and wrong argument types")
    func badCommands() async throws {
        try await withServer { server in
            let socket = try await connectRaw(server, "alice")
            let cases: [(String, ErrorCode, Double)] = [
                ("{not json", .malformedFrame, 0),
                (#"[1,2,3]"#, .malformedFrame, 0),
                (#"{"op":"user.me"}"#, .malformedFrame, 0),
                (#"{"id":3,"op":"user.me",}"#, .malformedFrame, 0),
                (#"{"id":"seven","op":"user.me"}"#, .malformedFrame, 0),
                (#"{"id":5,"op":"no.such.thing","args":{}}"#, .unknownOperation, 5),
                (#"{"id":6,"op":"user.get","args":{"id":42}}"#, .invalidParameterValue, 6),
                (#"{"id":7,"op":"user.get","args":{}}"#, .invalidParameterValue, 7),
                (#"{"id":8,"op":"user.list","args":{"limit":"ten"}}"#, .invalidParameterValue, 8),
                (#"{"id":9,"op":"user.list","args":{"limit":0}}"#, .invalidParameterValue, 9),
                (#"{"id":10,"op":"stream.subscribe","args":{"stream":"no spaces allowed"}}"#, .invalidParameterValue, 10),
                (#"{"id":11,"op":"stream.subscribe","args":{"stream":"app:secret"}}"#, .permissionDenied, 11),
                (#"{"id":12,"op":"stream.subscribe","args":{"stream":"mystery:x"}}"#, .invalidParameterValue, 12),
                (#"{"id":13,"op":"stream.unsubscribe","args":{"stream":"app:never"}}"#, .notFound, 13),
                (#"{"id":14,"op":"user.partialUpdate","args":{"set":{"extraData":{"a":1}},"unset":["a"]}}"#, .invalidParameterValue, 14),
            ]
            for (frame, code, re) in cases {
                let answer = try await reply(socket, to: frame)
                #expect(answer["error"]?["code"]?.numberValue == Double(code.rawValue), "\(frame) → \(answer)")
                #expect(answer["error"]?["name"]?.stringValue == code.name)
                #expect(answer["error"]?["message"]?.stringValue?.isEmpty == false)
                #expect(answer["re"]?.numberValue == re)
            }
            // Binary frames carry JSON too; invalid UTF-8 is just malformed.
            try socket.sendFrame(opcode: 2, payload: [0xff, 0xfe, 0x00])
            let binary = try RawJSON(json: try await socket.readText())
            #expect(binary["error"]?["name"]?.stringValue == "malformedFrame")
            // After all that, the connection still works.
            let me = try await reply(socket, to: #"{"id":99,"op":"user.me"}"#)
            #expect(me["re"]?.numberValue == 99)
            #expect(me["result"]?["id"]?.stringValue == "alice")
            #expect(server.server.connectionCount == 1)
        }
    }

    @Test("a frame over 64 KiB closes that connection with 1009; the server keeps serving others")
    func oversizedFrame() async throws {
        try await withServer { server in
            let bystander = try await server.client("bob")
            let socket = try await connectRaw(server, "alice")
            let huge = #"{"id":1,"op":"user.update","args":{"nickname":""# + String(repeating: "a", count: 70 * 1024) + #""}}"#
            try socket.sendText(huge)
            #expect(try await socket.readUntilClosed() == 1009)

            // A message split in fragments is limited as a whole.
            let fragmented = try await connectRaw(server, "carol")
            let part = [UInt8](repeating: UInt8(ascii: "a"), count: 40 * 1024)
            try fragmented.write([0x01, 0xfe, 0xa0, 0x00, 0, 0, 0, 0] + part)  // text, not final, masked with zeros
            try fragmented.write([0x80, 0xfe, 0xa0, 0x00, 0, 0, 0, 0] + part)  // continuation, final
            let fragmentedCode = try await fragmented.readUntilClosed()
            #expect(fragmentedCode == 1009, "closed with \(String(describing: fragmentedCode))")

            #expect(try await bystander.currentUserController().currentUser().id == "bob")
            let fresh = try await server.client("dave")
            #expect(try await fresh.user(id: "bob").id == "bob")
            // The SDK refuses to send such a frame at all.
            do {
                try await fresh.currentUserController().updateUserData(name: String(repeating: "n", count: 70 * 1024))
                Issue.record("the SDK sent an oversized frame")
            } catch let error as GreenroomError {
                #expect(error.is(.payloadTooLarge))
            }
            #expect(fresh.connectionState == .connected)
            await bystander.disconnect()
            await fresh.disconnect()
        }
    }

    @Test("the server pings every interval: a peer that answers stays, one that stays silent is closed with 1001")
    func heartbeat() async throws {
        try await withServer({ $0.heartbeatInterval = 1 }) { server in
            // The answering peer answers every ping from the moment it connects, in a task of
            // its own: the server closes a peer silent for two intervals, and on a loaded
            // machine the other two upgrades can take that long.
            let answering = try await connectRaw(server, "echo")
            let pinged = Locked<[ContinuousClock.Instant]>([])
            let answerer = Task {
                while !Task.isCancelled {
                    do {
                        let frame = try await answering.readFrame(timeout: .seconds(3))
                        if frame.opcode == 9 {
                            pinged.withLock { $0.append(.now) }
                            try answering.sendFrame(opcode: 10, payload: frame.payload)
                        }
                    } catch {
                        try? await Task.sleep(for: .milliseconds(10))
                    }
                }
            }
            defer { answerer.cancel() }
            let sdk = try await server.client("sdk")
            let silent = try await connectRaw(server, "ghost")
            let start = ContinuousClock.now
            // The raw socket that never answers is closed with 1001; the others stay.
            #expect(try await silent.readUntilClosed(timeout: .seconds(10)) == 1001)
            try await eventually("the silent peer is gone") { server.server.connectionCount == 2 }
            // The answering peer was pinged every interval, and is still connected.
            try await Task.sleep(for: .seconds(4))
            let pings = pinged.withLock { $0.filter { $0 > start }.count }
            #expect(pings >= 3, "\(pings) pings at a 1 s interval since the silent peer connected")
            #expect(server.server.connectionCount == 2)
            #expect(sdk.connectionState == .connected)
            #expect(try await sdk.currentUserController().currentUser().id == "sdk")
        }
    }

    @Test("40 commands sent without waiting: messages stored in the order sent, a failing one alone refused, a read between them sees every earlier message")
    func pipelinedSends() async throws {
        try await withServer { server in
            let alice = try await server.client("alice")
            _ = try await alice.createChannel(id: "pipe")
            let socket = try await connectRaw(server, "alice")
            var frames: [String] = []
            for id in 1...40 {
                switch id {
                case 20: frames.append(#"{"id":20,"op":"message.send","args":{"channelId":"nowhere","text":"m20"}}"#)
                case 30: frames.append(#"{"id":30,"op":"message.list","args":{"channelId":"pipe","limit":100}}"#)
                default: frames.append(#"{"id":\#(id),"op":"message.send","args":{"channelId":"pipe","text":"m\#(id)"}}"#)
                }
            }
            for frame in frames { try socket.sendText(frame) }
            var replies: [Int: RawJSON] = [:]
            while replies.count < 40 {
                let reply = try RawJSON(json: try await socket.readText())
                let id = try #require(reply["re"]?.numberValue.map { Int($0) })
                #expect(replies[id] == nil, "two replies to \(id)")
                replies[id] = reply
            }
            #expect(replies[20]?["error"]?["name"]?.stringValue == "notFound")
            let sent = (1...40).filter { $0 != 20 && $0 != 30 }
            for id in sent {
                #expect(replies[id]?["result"]?["text"]?.stringValue == "m\(id)", "reply to \(id): \(String(describing: replies[id]))")
            }
            // Sequence numbers follow the order of sending.
            let sequences = sent.compactMap { replies[$0]?["result"]?["sequence"]?.numberValue }
            #expect(sequences == (1...38).map(Double.init))
            // The read waited for the sends before it, and saw none after it.
            let listed = replies[30]?["result"]?["items"]?.arrayValue?.compactMap { $0["text"]?.stringValue }
            #expect(listed == (1...29).filter { $0 != 20 }.map { "m\($0)" })
            let history = try await alice.channelController(for: "pipe").loadPreviousMessages(before: nil, limit: 100)
            #expect(history.items.map(\.text) == sent.map { "m\($0)" })
        }
    }

    /// A short frame masked with zeros (so the payload is sent as is).
    static func frame(opcode: UInt8, fin: Bool, _ text: String) -> [UInt8] {
        let payload = Array(text.utf8)
        precondition(payload.count < 126)
        return [(fin ? 0x80 : 0) | opcode, 0x80 | UInt8(payload.count), 0, 0, 0, 0] + payload
    }

    @Test("protocol violations (a stray continuation, a reserved bit, an unmasked frame, an interleaved message) close with 1002; a ping gets its pong; a client's close is answered with its code and the socket closed, as is a client that stops sending")
    func framing() async throws {
        try await withServer { server in
            // A continuation with no message started.
            let orphan = try await connectRaw(server, "alice")
            try orphan.sendFrame(opcode: 0, payload: Array("x".utf8))
            #expect(try await orphan.readUntilClosed() == 1002)
            // A reserved bit set (no extension was negotiated).
            let reserved = try await connectRaw(server, "bob")
            try reserved.write([0xC1, 0x81, 0, 0, 0, 0, UInt8(ascii: "x")])
            #expect(try await reserved.readUntilClosed() == 1002)
            // An unmasked frame (clients must mask theirs).
            let unmasked = try await connectRaw(server, "erin")
            try unmasked.write([0x81, 0x02] + Array("{}".utf8))
            #expect(try await unmasked.readUntilClosed() == 1002)
            // A new message while a fragmented one is unfinished.
            let interleaved = try await connectRaw(server, "carol")
            try interleaved.write(Self.frame(opcode: 1, fin: false, "{"))
            try interleaved.sendText("{}")
            #expect(try await interleaved.readUntilClosed() == 1002)

            let polite = try await connectRaw(server, "dave")
            try polite.sendFrame(opcode: 9, payload: [1, 2, 3])
            let pong = try await polite.readFrame()
            #expect(pong.opcode == 10 && pong.payload == [1, 2, 3])
            // A fragmented command is joined.
            try polite.write(Self.frame(opcode: 1, fin: false, #"{""#))
            try polite.write(Self.frame(opcode: 0, fin: true, #"id":4,"op":"user.me"}"#))
            let me = try RawJSON(json: try await polite.readText())
            #expect(me["re"]?.numberValue == 4)
            #expect(me["result"]?["id"]?.stringValue == "dave")
            try polite.sendFrame(opcode: 8, payload: [0x03, 0xE8])
            let answer = try await polite.readFrame()
            #expect(answer.opcode == 8 && RawSocket.closeCode(answer.payload) == 1000)
            #expect(try await polite.readUntilEOF(timeout: .seconds(5)))
            // A client that stops sending without a close frame is closed too.
            let quitter = try await connectRaw(server, "frank")
            quitter.shutdownWrites()
            #expect(try await quitter.readUntilEOF(timeout: .seconds(5)))
            // Each closed connection was cleaned up.
            try await eventually("every connection is gone") { server.server.connectionCount == 0 }
        }
    }

    @Test("300 commands sent without reading a reply: reading pauses and resumes, and every command is answered in order")
    func flowControl() async throws {
        try await withServer { server in
            let socket = try await connectRaw(server, "alice")
            for id in 1...300 { try socket.sendText(#"{"id":\#(id),"op":"user.me"}"#) }
            var answered: [Int] = []
            while answered.count < 300 {
                let reply = try RawJSON(json: try await socket.readText())
                #expect(reply["result"]?["id"]?.stringValue == "alice")
                answered.append(Int(try #require(reply["re"]?.numberValue)))
            }
            #expect(answered == Array(1...300))
            let pauses = server.server.metrics.exposition().split(separator: "\n").first { $0.hasPrefix("greenroom_reads_paused_total ") }
            #expect(pauses.flatMap { Int($0.split(separator: " ").last ?? "") }.map { $0 >= 1 } == true, "\(String(describing: pauses))")
            // The connection reads again afterwards.
            try socket.sendText(#"{"id":301,"op":"user.me"}"#)
            #expect(try RawJSON(json: try await socket.readText())["re"]?.numberValue == 301)
        }
    }
}
