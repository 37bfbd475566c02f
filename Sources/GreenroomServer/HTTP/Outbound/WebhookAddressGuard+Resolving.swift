import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolving a webhook's host and checking each of its addresses against
/// ``WebhookAddressGuard``'s rules, before each attempt.
extension WebhookAddressGuard {
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
