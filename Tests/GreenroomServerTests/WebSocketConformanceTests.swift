import Foundation
import Greenroom
import GreenroomServer
import Testing

/// RFC 6455 as a strict client sees it: each rule a server must enforce, with the exact
/// close code it answers.
@Suite("WebSocket conformance: RFC 6455's rules and their close codes", .wholeRun)
struct WebSocketConformanceTests {
    func connect(_ server: TestServer) async throws -> RawSocket {
        let socket = try RawSocket(port: server.port)
        let (status, _) = try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(try await server.token("ws"))"])
        #expect(status == 101)
        return socket
    }

    /// The close code the server sends after `frames` (nil when it closed without one).
    func closeCode(_ server: TestServer, after frames: [(opcode: UInt8, payload: [UInt8], fin: Bool)]) async throws -> Int? {
        let socket = try await connect(server)
        for frame in frames { try socket.sendFrame(opcode: frame.opcode, payload: frame.payload, fin: frame.fin) }
        return try await socket.readUntilClosed()
    }

    static func close(_ code: Int, reason: [UInt8] = []) -> [UInt8] { [UInt8(code >> 8), UInt8(code & 0xff)] + reason }

    @Test("text that is not valid UTF-8 fails the connection with 1007: whole, split across fragments, or cut in a code point")
    func invalidUTF8() async throws {
        try await withServer { server async throws in
            let snowman: [UInt8] = Array("☃".utf8)  // E2 98 83
            #expect(try await closeCode(server, after: [(1, [0x7b, 0xff, 0x7d], true)]) == 1007)
            #expect(try await closeCode(server, after: [(1, [0x7b, 0xe2], false), (0, [0x28, 0xa1, 0x7d], true)]) == 1007)
            #expect(try await closeCode(server, after: [(1, Array("{\"a\":\"".utf8) + snowman.prefix(2), true)]) == 1007)
            // A code point split across fragments is fine: the message is whole when joined.
            let socket = try await connect(server)
            let text = Array(#"{"id":1,"op":"user.get","args":{"id":"☃"}}"#.utf8)
            let cut = text.firstIndex(of: 0xe2)! + 1
            try socket.sendFrame(opcode: 1, payload: Array(text[..<cut]), fin: false)
            try socket.sendFrame(opcode: 0, payload: Array(text[cut...]), fin: true)
            let reply = try RawJSON(json: try await socket.readText())
            #expect(reply["re"]?.numberValue == 1 && reply["error"]?["name"]?.stringValue == "notFound")
        }
    }

    @Test("close frames: a 1-byte payload and codes not allowed on the wire get 1002, a reason that is not UTF-8 gets 1007, the rest are echoed")
    func closeFrames() async throws {
        try await withServer { server async throws in
            #expect(try await closeCode(server, after: [(8, [0x03], true)]) == 1002)
            for code in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
                #expect(try await closeCode(server, after: [(8, Self.close(code), true)]) == 1002, "code \(code)")
            }
            #expect(try await closeCode(server, after: [(8, Self.close(1000, reason: [0xce, 0xba, 0xe1]), true)]) == 1007)
            for code in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
                #expect(try await closeCode(server, after: [(8, Self.close(code, reason: Array("bye ☃".utf8)), true)]) == code, "code \(code)")
            }
            // No code at all: answered with 1000.
            #expect(try await closeCode(server, after: [(8, [], true)]) == 1000)
        }
    }

    /// Reads until the server's close frame; returns the opcodes before it and its code.
    func framesUntilClose(_ socket: RawSocket) async throws -> (before: [UInt8], code: Int?) {
        var before: [UInt8] = []
        while true {
            let frame = try await socket.readFrame()
            if frame.opcode == 8 { return (before, RawSocket.closeCode(frame.payload)) }
            before.append(frame.opcode)
        }
    }

    @Test("a message, then the client's close: its own code is echoed (never 1001), also after 64 KiB in 1,300-byte fragments")
    func closeAfterMessages() async throws {
        try await withServer { server in
            // The reply to a message sent before the close may come first or not at all (the
            // client is leaving); the close answers with the client's code.
            let socket = try await connect(server)
            try socket.sendText("Hello, world!")
            try socket.sendFrame(opcode: 8, payload: Self.close(1000))
            let small = try await framesUntilClose(socket)
            #expect(small.code == 1000 && small.before.allSatisfy { $0 == 1 })

            let big = try await connect(server)
            let message = [UInt8](repeating: UInt8(ascii: "*"), count: 65_536)
            var offset = 0
            while offset < message.count {
                let end = min(offset + 1_300, message.count)
                try big.sendFrame(opcode: offset == 0 ? 1 : 0, payload: Array(message[offset..<end]), fin: end == message.count)
                offset = end
            }
            try big.sendFrame(opcode: 8, payload: Self.close(1000))
            let large = try await framesUntilClose(big)
            #expect(large.code == 1000 && large.before.allSatisfy { $0 == 1 })

            // Without a close, the same message is answered (malformedFrame) and the socket stays.
            let open = try await connect(server)
            offset = 0
            while offset < message.count {
                let end = min(offset + 1_300, message.count)
                try open.sendFrame(opcode: offset == 0 ? 1 : 0, payload: Array(message[offset..<end]), fin: end == message.count)
                offset = end
            }
            #expect(try RawJSON(json: try await open.readText())["error"]?["name"]?.stringValue == "malformedFrame")
        }
    }

    @Test("control frames over 125 bytes or fragmented, reserved opcodes and bits, continuations out of order: 1002; over 64 KiB: 1009")
    func framingRules() async throws {
        try await withServer { server async throws in
            #expect(try await closeCode(server, after: [(9, [UInt8](repeating: 1, count: 126), true)]) == 1002)
            #expect(try await closeCode(server, after: [(9, [1], false)]) == 1002)
            for opcode: UInt8 in [3, 4, 5, 6, 7, 11, 12, 15] {
                #expect(try await closeCode(server, after: [(opcode, [], true)]) == 1002, "opcode \(opcode)")
            }
            #expect(try await closeCode(server, after: [(0, Array("{}".utf8), true)]) == 1002)
            #expect(try await closeCode(server, after: [(1, Array("{".utf8), false), (1, Array("}".utf8), true)]) == 1002)
            #expect(try await closeCode(server, after: [(1, [UInt8](repeating: 0x20, count: 64 * 1024 + 1), true)]) == 1009)
            let socket = try await connect(server)
            try socket.write([0x81 | 0x40, 0x80, 1, 2, 3, 4])  // RSV1 set, no extension agreed
            #expect(try await socket.readUntilClosed() == 1002)
        }
    }
}
