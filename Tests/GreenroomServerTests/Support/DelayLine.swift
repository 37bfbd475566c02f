import Dispatch
import Foundation
import GreenroomProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A link that holds every packet for a while, both ways: two TUN devices whose packets a
/// thread each reads and writes out of the other after `delay`. This kernel has no `netem`;
/// between two network namespaces (``NetworkNamespace`` puts one end in each) this is a
/// slow link's delay, in user space. Needs root and `/dev/net/tun`.
final class DelayLine: Sendable {
    /// The devices' names, to move into namespaces and address.
    let names: (String, String)
    let delay: Duration
    private let descriptors: (Int32, Int32)
    private let stopped = Locked(false)
    private let queue = DispatchQueue(label: "greenroom.test.delay-line")

    /// Opens the two devices, named `<prefix>a` and `<prefix>b` (at most 13 characters).
    init(prefix: String, delay: Duration) throws {
        self.delay = delay
        let first = try Self.open(prefix + "a")
        let second: Int32
        do {
            second = try Self.open(prefix + "b")
        } catch {
            close(first)
            throw error
        }
        names = (prefix + "a", prefix + "b")
        descriptors = (first, second)
    }

    /// Starts moving packets, once the devices are up where they belong.
    func start() {
        let pairs = [(descriptors.0, descriptors.1), (descriptors.1, descriptors.0)]
        for (from, to) in pairs {
            // A thread of its own each, ending once stopped: the reads block (in poll).
            Thread.detachNewThread { [self] in pump(from: from, to: to) }
        }
    }

    /// Stops moving packets and closes the devices, which removes them.
    func stop() {
        guard !stopped.withLock({ state in defer { state = true }; return state }) else { return }
        // The pumps look at `stopped` at least every 100 ms; the writes still queued go to
        // descriptors that are closed after them, on the same queue.
        Thread.sleep(forTimeInterval: 0.3)
        queue.sync {
            close(descriptors.0)
            close(descriptors.1)
        }
    }

    /// Reads packets from `from` and writes each to `to` after the delay, in order.
    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        while !stopped.withLock({ $0 }) {
            var poller = pollfd(fd: from, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = read(from, &buffer, buffer.count)
            guard count > 0 else { continue }
            let packet = Array(buffer[0..<count])
            queue.asyncAfter(deadline: .now() + seconds) { [self] in
                guard !stopped.withLock({ $0 }) else { return }
                _ = packet.withUnsafeBytes { write(to, $0.baseAddress, $0.count) }
            }
        }
    }

    /// Opens a TUN device (`IFF_TUN | IFF_NO_PI`) named `name`.
    private static func open(_ name: String) throws -> Int32 {
        let fd = Glibc.open("/dev/net/tun", O_RDWR)
        guard fd >= 0 else { throw TestTimeout(what: "cannot open /dev/net/tun (errno \(errno))") }
        var request = ifreq()
        withUnsafeMutableBytes(of: &request.ifr_ifrn.ifrn_name) { bytes in
            for (index, byte) in name.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        // <linux/if_tun.h>, which Glibc's module leaves out: IFF_TUN, IFF_NO_PI, TUNSETIFF.
        let tun: Int16 = 0x0001, noPacketInformation: Int16 = 0x1000
        let tunSetInterface: UInt = 0x4004_54CA
        request.ifr_ifru.ifru_flags = tun | noPacketInformation
        guard ioctl(fd, tunSetInterface, &request) == 0 else {
            let error = errno
            close(fd)
            throw TestTimeout(what: "cannot make the TUN device \(name) (errno \(error))")
        }
        return fd
    }
}
