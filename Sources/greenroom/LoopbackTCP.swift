import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Plain TCP to a port on 127.0.0.1, for the benchmarks that need a socket of their own.
enum LoopbackTCP {
    /// Connects the TCP socket `fd` to `port` on 127.0.0.1; `true` when it connected.
    static func connect(_ fd: Int32, port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Whether a TCP connection to `port` on 127.0.0.1 is accepted (it is closed at once).
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, port: port)
    }
}
