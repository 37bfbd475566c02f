import Foundation
import GreenroomCore
import GreenroomProtocol

/// A network namespace a test makes on this machine, and removes: a veth pair with the host
/// end `10.x.y.1/30` here and the other end `10.x.y.2/30` inside, routed through the host
/// end. Traffic goes only between the two ends. Needs root, `ip` (iproute2) and `iptables`.
///
/// Behind a NAT, the namespace the programs run in sits behind a second one, a router that
/// masquerades (iptables `MASQUERADE`) what leaves it for the host end: this machine sees
/// only the router's address, `10.x.y.2`, and cannot reach the programs' own, as with a home
/// or mobile network's NAT. ``forward(tcpPort:)`` opens a port through it for the test.
/// With a delay, the router and the programs are joined by a ``DelayLine`` rather than a
/// veth pair: every packet between them waits that long, each way.
final class NetworkNamespace: Sendable {
    /// The namespace the programs run in.
    let name: String
    /// The host end's interface and address, where the test's servers listen for it.
    let hostInterface: String
    let hostAddress: String
    /// The address this machine reaches inside at (the router's, behind a NAT).
    let address: String
    /// The router's namespace and its interface toward the host end, behind a NAT.
    private let router: (name: String, outside: String, inside: String)?
    /// The programs' own address behind the NAT.
    let privateAddress: String?
    /// The slow link between the router and the programs, when there is one.
    private let delayLine: DelayLine?
    private let ip: String
    private let iptables: String
    /// The firewall rules added on the host end, to delete with the namespace.
    private let rules = Locked<[[String]]>([])

    /// `ip` and `iptables` as root, or `nil` after reporting the skip (a failure under
    /// `GREENROOM_REQUIRE_ALL=1`).
    static func tools(for what: String) -> (ip: String, iptables: String)? {
        let ip = TestEnvironment.program("GREENROOM_TEST_IP", "ip")
        let iptables = TestEnvironment.program("GREENROOM_TEST_IPTABLES", "iptables")
        if getuid() == 0, let ip, let iptables { return (ip, iptables) }
        Skips.skip(what, because: getuid() != 0 ? "network namespaces need root"
            : "ip or iptables not found (GREENROOM_TEST_IP, GREENROOM_TEST_IPTABLES; Debian: apt-get install iproute2 iptables)")
        return nil
    }

    /// Makes the namespace and its link; `behindNAT`, a masquerading router between them;
    /// with a `delay` (which implies the NAT), a link that holds each packet that long.
    init(tools: (ip: String, iptables: String), behindNAT: Bool = false, delay: Duration? = nil) async throws {
        let behindNAT = behindNAT || delay != nil
        let id = UInt32.random(in: 0..<(1 << 24))
        let tag = String(id, radix: 16)
        hostInterface = "grh\(tag)"
        let linked = "grn\(tag)"
        // A /30 in 10.128.0.0/9, by the id.
        let third = Int(id >> 6) & 0xFF, fourth = Int(id & 0x3F) << 2
        let second = 128 + Int(id >> 14) & 0x7F
        hostAddress = "10.\(second).\(third).\(fourth + 1)"
        address = "10.\(second).\(third).\(fourth + 2)"
        ip = tools.ip
        iptables = tools.iptables
        let first = behindNAT ? "greenroom-nat-\(tag)" : "greenroom-test-\(tag)"
        var steps: [[String]] = [
            [ip, "netns", "add", first],
            [ip, "link", "add", hostInterface, "type", "veth", "peer", "name", linked],
            [ip, "link", "set", linked, "netns", first],
            [ip, "addr", "add", "\(hostAddress)/30", "dev", hostInterface],
            [ip, "link", "set", hostInterface, "up"],
            [ip, "netns", "exec", first, ip, "addr", "add", "\(address)/30", "dev", linked],
            [ip, "netns", "exec", first, ip, "link", "set", linked, "up"],
            [ip, "netns", "exec", first, ip, "link", "set", "lo", "up"],
            [ip, "netns", "exec", first, ip, "route", "add", "default", "via", hostAddress],
        ]
        if behindNAT {
            // The private side: 192.168.x.y/30, seen by nobody but the router.
            name = "greenroom-test-\(tag)"
            let routerSide = "grr\(tag)", privateSide = "grp\(tag)"
            let gateway = "192.168.\(third).\(fourth + 1)", own = "192.168.\(third).\(fourth + 2)"
            privateAddress = own
            steps.append([ip, "netns", "add", name])
            if let delay {
                let line = try DelayLine(prefix: "grd\(tag)", delay: delay)
                delayLine = line
                router = (first, linked, line.names.0)
                steps += [
                    [ip, "link", "set", line.names.0, "netns", first],
                    [ip, "link", "set", line.names.1, "netns", name],
                ]
            } else {
                delayLine = nil
                router = (first, linked, routerSide)
                steps += [
                    [ip, "netns", "exec", first, ip, "link", "add", routerSide, "type", "veth", "peer", "name", privateSide],
                    [ip, "netns", "exec", first, ip, "link", "set", privateSide, "netns", name],
                ]
            }
            let sides = delayLine?.names ?? (routerSide, privateSide)
            steps += [
                [ip, "netns", "exec", first, ip, "addr", "add", "\(gateway)/30", "dev", sides.0],
                [ip, "netns", "exec", first, ip, "link", "set", sides.0, "up"],
                [ip, "netns", "exec", name, ip, "addr", "add", "\(own)/30", "dev", sides.1],
                [ip, "netns", "exec", name, ip, "link", "set", sides.1, "up"],
                [ip, "netns", "exec", name, ip, "link", "set", "lo", "up"],
                [ip, "netns", "exec", name, ip, "route", "add", "default", "via", gateway],
                [ip, "netns", "exec", first, "sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"],
                [ip, "netns", "exec", first, iptables, "-t", "nat", "-A", "POSTROUTING", "-o", linked, "-j", "MASQUERADE"],
            ]
        } else {
            name = first
            router = nil
            privateAddress = nil
            delayLine = nil
        }
        do {
            for step in steps { try await Self.run(step) }
            delayLine?.start()
        } catch {
            await remove()
            throw error
        }
    }

    /// Behind a NAT, sends what reaches the router's TCP `port` from this machine on to the
    /// same port inside (a port forward, `DNAT`): how the test reaches a program there. Does
    /// nothing without a NAT.
    func forward(tcpPort port: Int) async throws {
        guard let router, let privateAddress else { return }
        try await Self.run([ip, "netns", "exec", router.name, iptables, "-t", "nat", "-A", "PREROUTING", "-i", router.outside,
                            "-p", "tcp", "--dport", String(port), "-j", "DNAT", "--to-destination", "\(privateAddress):\(port)"])
    }

    /// The command that runs `program` inside the namespace.
    func inside(_ program: String, _ arguments: [String]) -> (String, [String]) {
        (ip, ["netns", "exec", name, program] + arguments)
    }

    /// Drops every UDP packet that comes from inside to this machine: only TCP reaches it.
    func dropUDP() async throws {
        let rule = ["INPUT", "-i", hostInterface, "-p", "udp", "-j", "DROP"]
        try await Self.run([iptables, "-I"] + rule)
        rules.withLock { $0.append(rule) }
    }

    /// Drops the UDP packets from inside whose source port is `port`: a path that used it is
    /// gone for good, as when a NAT's binding changed.
    func dropUDP(fromPort port: Int) async throws {
        let rule = ["INPUT", "-i", hostInterface, "-p", "udp", "--sport", String(port), "-j", "DROP"]
        try await Self.run([iptables, "-I"] + rule)
        rules.withLock { $0.append(rule) }
    }

    /// Drops a share (0–1) of the UDP packets either way on the link, at random: a lossy
    /// network (this kernel has no `netem`; iptables' statistic match drops at random).
    func loseUDP(_ share: Double) async throws {
        let probability = String(format: "%.3f", share)
        for rule in [["INPUT", "-i", hostInterface], ["OUTPUT", "-o", hostInterface]] {
            let full = rule + ["-p", "udp", "-m", "statistic", "--mode", "random", "--probability", probability, "-j", "DROP"]
            try await Self.run([iptables, "-I"] + full)
            rules.withLock { $0.append(full) }
        }
    }

    /// Deletes the rules added so far: the link is clean again.
    func clearRules() async throws {
        let added = rules.withLock { rules in
            defer { rules = [] }
            return rules
        }
        for rule in added { try await Self.run([iptables, "-D"] + rule) }
    }

    /// Takes the link down (the host end), or brings it back up.
    func setLink(up: Bool) async throws {
        try await Self.run([ip, "link", "set", hostInterface, up ? "up" : "down"])
    }

    /// The packets the rules dropped so far.
    func droppedPackets() async throws -> Int {
        let listing = try await Self.run([iptables, "-L", "INPUT", "-v", "-n", "-x"])
        return listing.split(separator: "\n").filter { $0.contains(hostInterface) && $0.contains("DROP") }
            .compactMap { line in line.split(separator: " ").first.flatMap { Int($0) } }.reduce(0, +)
    }

    /// Deletes the rules, the namespace and its link.
    func remove() async {
        for rule in rules.withLock({ $0 }) { _ = try? await Self.run([iptables, "-D"] + rule) }
        _ = try? await Self.run([ip, "link", "del", hostInterface])
        _ = try? await Self.run([ip, "netns", "del", name])
        if let router { _ = try? await Self.run([ip, "netns", "del", router.name]) }
        delayLine?.stop()
    }

    /// Runs a command; returns what it wrote, or throws with its errors when it fails.
    @discardableResult
    private static func run(_ command: [String]) async throws -> String {
        let (exit, output, errors) = try await ChildProcess.run(command[0], Array(command.dropFirst()), limit: .seconds(20))
        guard exit == .exited(0) else {
            throw TestTimeout(what: "\(command.joined(separator: " ")) failed (\(exit)): \(String(decoding: errors, as: UTF8.self))")
        }
        return String(decoding: output, as: UTF8.self)
    }
}
