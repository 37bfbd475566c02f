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
///
/// The address rules are here, for the configuration's check of an IP literal; the
/// server resolves names before each attempt with them.
package enum WebhookAddressGuard {
    /// Why the IPv4 address (in host order) may not be called, or `nil`.
    package static func refusal(ipv4 a: UInt32) -> String? {
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
    package static func refusal(ipv6 b: [UInt8]) -> String? {
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
    package static func literalRefusal(_ host: String) -> String? {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            return refusal(ipv4: UInt32(bigEndian: v4.s_addr)).map { "\(bare) is \($0)" }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, bare, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        return refusal(ipv6: bytes).map { "\(bare) is \($0)" }
    }
}
