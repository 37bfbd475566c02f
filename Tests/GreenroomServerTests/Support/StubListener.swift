import Foundation
import GreenroomProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener that behaves like a broken or refusing node, to see the SDK's connection
/// attempts end: it reads each request, then hangs up, stays silent, or refuses with 503.
final class StubListener: @unchecked Sendable {
    // @unchecked: `listener` and `behaviour` are set in init and only read afterwards; the
    // counters are behind `lock`.
    enum Behaviour {
        /// Closes the socket without answering.
        case hangUp
        /// Never answers and keeps the socket open.
        case silent
        /// Answers `status` with `error` as JSON, as our server refuses an upgrade, and keeps
        /// the socket open (keep-alive): closing it is the client's job.
        case refuse(status: Int, error: GreenroomError)
    }

    let port: Int
    private let listener: Int32
    private let behaviour: Behaviour
    private let lock = NSLock()
    private var acceptedCount = 0
    private var closedByClientCount = 0

    init(_ behaviour: Behaviour) throws {
        self.behaviour = behaviour
        (listener, port) = listenOnLoopback()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// Stops accepting (connections already accepted keep their behaviour).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Connections accepted so far.
    var accepted: Int { lock.withLock { acceptedCount } }
    /// Accepted connections the client has closed (end of stream or reset seen here).
    var closedByClient: Int { lock.withLock { closedByClientCount } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            lock.withLock { acceptedCount += 1 }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.ends(with: Array("\r\n\r\n".utf8)) {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                lock.withLock { closedByClientCount += 1 }
                return
            }
            request += buffer[0..<n]
        }
        switch behaviour {
        case .hangUp:
            return
        case .silent:
            break
        case .refuse(let status, let error):
            let body = (try? WireCoding.encoder.encode(["error": error])) ?? Data()
            let head = "HTTP/1.1 \(status) Refused\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: keep-alive\r\n\r\n"
            let response = Array(head.utf8) + Array(body)
            _ = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        // Wait for the client to close (or for nothing, forever, if it never does).
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
        }
        lock.withLock { closedByClientCount += 1 }
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
