import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy in front of a server that cuts one connection once, when the bytes it has
/// carried towards the server, over all its connections, pass `cutAfter`: a network
/// failure in the middle of an upload (whether its chunks share a connection or not).
final class CuttingProxy: @unchecked Sendable {
    // @unchecked: `listener` and `target` are set in init and only read afterwards; the
    // bytes carried, the cut flag and the cut count are behind `lock`.
    let port: Int
    private let listener: Int32
    private let target: Int
    private let cutAfter: Int
    private let lock = NSLock()
    private var cutDone = false
    private var carried = 0
    private(set) var cuts = 0

    init(target: Int, cutAfter: Int) throws {
        self.target = target
        self.cutAfter = cutAfter
        (listener, port) = listenOnLoopback()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(target).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            // Each direction shuts both sockets down when it ends; the last one to end closes
            // them, so that a descriptor is never reused while the other direction still uses it.
            let pair = SocketPair(client, upstream)
            Thread.detachNewThread { [self] in pump(from: client, to: upstream, counting: true); pair.done() }
            Thread.detachNewThread { [self] in pump(from: upstream, to: client, counting: false); pair.done() }
        }
    }

    private func pump(from source: Int32, to destination: Int32, counting: Bool) {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            if counting && takeCut(after: n) {
                break
            }
            var sent = 0
            while sent < n {
                let m = buffer[sent..<n].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if m <= 0 { break }
                sent += m
            }
            if sent < n { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    /// Counts `bytes` more carried towards the server; true (once) when they pass `cutAfter`.
    private func takeCut(after bytes: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        carried += bytes
        guard !cutDone, carried > cutAfter else { return false }
        cutDone = true
        cuts += 1
        return true
    }
}

/// Two sockets closed when both directions of the proxy are done with them.
final class SocketPair: @unchecked Sendable {
    // @unchecked: `remaining` is only touched under `lock`.
    private let sockets: (Int32, Int32)
    private let lock = NSLock()
    private var remaining = 2

    init(_ first: Int32, _ second: Int32) { sockets = (first, second) }

    func done() {
        lock.lock()
        remaining -= 1
        let last = remaining == 0
        lock.unlock()
        if last {
            close(sockets.0)
            close(sockets.1)
        }
    }
}

/// A listening socket on 127.0.0.1 at a port the system picks: its descriptor and port.
func listenOnLoopback() -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    listen(fd, 64)
    var bound = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: bound.sin_port)))
}
