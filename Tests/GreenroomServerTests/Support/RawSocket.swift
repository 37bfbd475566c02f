import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare TCP client for what the SDK never does on purpose: malformed upgrades, frames
/// over the limit, not reading at all, not answering pings. Reads never block a thread:
/// they poll without waiting and sleep between tries.
final class RawSocket: @unchecked Sendable {
    // @unchecked: used by one test task at a time; the descriptor is only read after init.
    let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible { let description: String }

    /// Connects to `host:port`. The descriptor is kept only once connected: a class's
    /// `deinit` runs when its `init` throws after every property is set, so a descriptor
    /// closed here and kept would be closed twice (and the second time, perhaps, a socket
    /// another thread has just been given the same number for).
    init(port: Int, host: String = "127.0.0.1", receiveBufferBytes: Int32? = nil) throws {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        if var size = receiveBufferBytes {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr(host)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect() failed")
        }
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// Cuts the connection both ways, as a failing network would (no close frame).
    func cut() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Ends what this side sends (a TCP FIN, as a client that quits without a close frame).
    func shutdownWrites() {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    func write(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send() failed") }
            sent += n
        }
    }

    /// Reads what is available; `nil` at end of stream or on a reset.
    private func readAvailable() -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if n > 0 { return Array(chunk[0..<n]) }
        if n == 0 { return nil }
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? [] : nil
    }

    private func fill(_ count: Int, timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while buffer.count < count {
            guard let bytes = readAvailable() else { throw Failure(description: "connection closed") }
            if bytes.isEmpty {
                guard ContinuousClock.now < deadline else { throw Failure(description: "read timed out") }
                try await Task.sleep(for: .milliseconds(5))
            } else {
                buffer.append(contentsOf: bytes)
            }
        }
    }

    private func take(_ count: Int) -> [UInt8] {
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// Sends a WebSocket upgrade request; returns the status and, on a refusal, the body.
    func upgrade(path: String, headers: [String: String] = [:], timeout: Duration = .seconds(10)) async throws -> (status: Int, body: String) {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        try write(Array(request.utf8))
        let deadline = ContinuousClock.now + timeout
        while true {
            if let end = buffer.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeFirst(end.upperBound)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                var length = 0
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if status == 101 { return (101, "") }
                try await fill(length, timeout: timeout)
                return (status, String(decoding: take(length), as: UTF8.self))
            }
            guard let bytes = readAvailable() else { throw Failure(description: "connection closed during the upgrade") }
            if bytes.isEmpty {
                guard ContinuousClock.now < deadline else { throw Failure(description: "no upgrade response") }
                try await Task.sleep(for: .milliseconds(5))
            }
            buffer.append(contentsOf: bytes)
        }
    }

    /// Sends one masked frame (opcode 1 text, 2 binary, 8 close, 9 ping, 10 pong; 0 a
    /// continuation), final unless `fin` is false.
    func sendFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true) throws {
        try write(Self.frame(opcode: opcode, payload: payload, fin: fin))
    }

    /// The bytes of one masked frame, as a client sends it.
    static func frame(opcode: UInt8, payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        switch payload.count {
        case ..<126: frame.append(0x80 | UInt8(payload.count))
        case ..<65536: frame.append(0x80 | 126); frame.append(contentsOf: [UInt8(payload.count >> 8), UInt8(payload.count & 0xff)])
        default:
            frame.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { frame.append(UInt8((payload.count >> shift) & 0xff)) }
        }
        frame.append(contentsOf: mask)
        for (i, byte) in payload.enumerated() { frame.append(byte ^ mask[i % 4]) }
        return frame
    }

    func sendText(_ text: String) throws { try sendFrame(opcode: 1, payload: Array(text.utf8)) }

    /// Reads one frame from the server.
    func readFrame(timeout: Duration = .seconds(10)) async throws -> (opcode: UInt8, payload: [UInt8]) {
        try await fill(2, timeout: timeout)
        let opcode = buffer[0] & 0x0f
        var length = Int(buffer[1] & 0x7f)
        var header = 2
        if length == 126 {
            try await fill(4, timeout: timeout)
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            header = 4
        } else if length == 127 {
            try await fill(10, timeout: timeout)
            length = (2..<10).reduce(0) { $0 << 8 | Int(buffer[$1]) }
            header = 10
        }
        try await fill(header + length, timeout: timeout)
        _ = take(header)
        return (opcode, take(length))
    }

    /// Reads frames until a text frame arrives (answering nothing); returns its text.
    func readText(timeout: Duration = .seconds(10)) async throws -> String {
        while true {
            let frame = try await readFrame(timeout: timeout)
            if frame.opcode == 1 { return String(decoding: frame.payload, as: UTF8.self) }
            if frame.opcode == 8 { throw Failure(description: "closed with \(Self.closeCode(frame.payload))") }
        }
    }

    /// The close code of a close frame's payload.
    static func closeCode(_ payload: [UInt8]) -> Int {
        payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
    }

    /// Reads and discards until the server closes; returns the close code if a close frame came.
    func readUntilClosed(timeout: Duration = .seconds(20)) async throws -> Int? {
        let deadline = ContinuousClock.now + timeout
        var code: Int?
        while ContinuousClock.now < deadline {
            do {
                let frame = try await readFrame(timeout: .seconds(1))
                if frame.opcode == 8 {
                    code = Self.closeCode(frame.payload)
                    try? sendFrame(opcode: 8, payload: Array(frame.payload.prefix(2)))
                }
            } catch let failure as Failure where failure.description == "connection closed" {
                return code
            } catch let failure as Failure where failure.description == "read timed out" {
                continue
            }
        }
        throw Failure(description: "the server did not close the connection")
    }

    /// What arrives within `timeout` after the first bytes come (nothing when none come), as text.
    func readAnswer(timeout: Duration) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        while ContinuousClock.now < deadline {
            guard let bytes = readAvailable() else { break }
            received += bytes
            if bytes.isEmpty {
                if !received.isEmpty { break }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// Reads and discards until the server closes the connection; false when it stays open
    /// for `timeout`.
    func readUntilEOF(timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let bytes = readAvailable() else { return true }
            if bytes.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        }
        return false
    }
}
