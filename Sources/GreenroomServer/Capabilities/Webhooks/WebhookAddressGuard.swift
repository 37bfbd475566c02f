import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which hosts a webhook may be sent to: by default only public addresses, so that whoever
/// registers an endpoint cannot make the server reach its own machine, the cloud's metadata
/// service or the private network (loopback, link-local, private, shared, multicast and
/// reserved ranges of IPv4 and IPv6, and IPv4 mapped or translated into IPv6).
///
/// An endpoint whose host is such an address is refused when it is registered; a host
/// name is resolved before each attempt, and the attempt fails (and is retried, then
/// parked) when any of its addresses is refused. Operators whose backend is on a private
/// network allow it with `GREENROOM_WEBHOOK_ALLOW_PRIVATE=1`.
enum WebhookAddressGuard {
    /// Why `address` may not be called, or `nil` when it is public.
    static func refusal(_ address: SocketAddress) -> String? {
        switch address {
        case .v4(let v4):
            return refusal(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            var raw = v6.address.sin6_addr
            let bytes = withUnsafeBytes(of: &raw) { Array($0) }
            return refusal(ipv6: bytes)
        default:
            return "not an IP address"
        }
    }

    /// Why the IPv4 address (in host order) may not be called, or `nil`.
    static func refusal(ipv4 a: UInt32) -> String? {
        func within(_ base: UInt32, _ bits: UInt32) -> Bool { bits == 0 || (a >> (32 - bits)) == (base >> (32 - bits)) }
        let ranges: [(UInt32, UInt32, String)] = [
            (0x0000_0000, 8, "this network"), (0x0A00_0000, 8, "private"), (0x6440_0000, 10, "shared (carrier NAT)"),
            (0x7F00_0000, 8, "loopback"), (0xA9FE_0000, 16, "link-local (cloud metadata)"), (0xAC10_0000, 12, "private"),
            (0xC000_0000, 24, "IETF protocol assignments"), (0xC000_0200, 24, "documentation"), (0xC0A8_0000, 16, "private"),
            (0xC612_0000, 15, "benchmarking"), (0xC633_6400, 24, "documentation"), (0xCB00_7100, 24, "documentation"),
            (0xE000_0000, 4, "multicast"), (0xF000_0000, 4, "reserved"),
        ]
        return ranges.first { within($0.0, $0.1) }.map { "a \($0.2) address" }
    }

    /// Why the IPv6 address (16 bytes) may not be called, or `nil`.
    static func refusal(ipv6 b: [UInt8]) -> String? {
        guard b.count == 16 else { return "not an IPv6 address" }
        let ipv4Tail = UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15])
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] <= 1 ? "a loopback or unspecified address" : "a reserved address" }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return refusal(ipv4: ipv4Tail) }   // ::ffff:a.b.c.d
        if b[0..<12] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { return refusal(ipv4: ipv4Tail) }        // 64:ff9b::/96
        if b[0] & 0xFE == 0xFC { return "a private (unique local) address" }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return "a link-local address" }
        if b[0] == 0xFF { return "a multicast address" }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return "a documentation address" }
        return nil
    }

    /// Why `host`, when it is an IP literal, may not be called; `nil` for a public address
    /// or a name (resolved at delivery).
    static func literalRefusal(_ host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        guard let address = try? SocketAddress(ipAddress: bare, port: 0) else { return nil }
        return refusal(address).map { "\(bare) is \($0)" }
    }

    /// Resolves `host` and returns why it may not be called (a refused address among its
    /// addresses, or no address at all), or `nil` when every address is public. Runs the
    /// system resolver on NIO's blocking thread pool.
    static func check(host: String) async -> String? {
        if let refusal = literalRefusal(host) { return refusal }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if (try? SocketAddress(ipAddress: bare, port: 0)) != nil { return nil }
        let addresses: [SocketAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive { try resolve(bare) }
        } catch {
            return "\(host) does not resolve: \(error)"
        }
        guard !addresses.isEmpty else { return "\(host) has no address" }
        for address in addresses {
            if let refusal = refusal(address) { return "\(host) resolves to \(address.ipAddress ?? "?"), \(refusal)" }
        }
        return nil
    }

    /// Every address `host` resolves to (blocking).
    private static func resolve(_ host: String) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else { throw ResolutionFailed(text: String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var next = list
        while let info = next?.pointee {
            if let raw = info.ai_addr {
                switch Int32(info.ai_family) {
                case AF_INET:
                    addresses.append(raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
                case AF_INET6:
                    addresses.append(raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: host) })
                default:
                    break
                }
            }
            next = info.ai_next
        }
        return addresses
    }

    private struct ResolutionFailed: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }
}
