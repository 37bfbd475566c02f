import Crypto
import Foundation
import GreenroomProtocol
import NIOCore
import NIOHTTP1
import NIOPosix

/// An app backend's webhook endpoint, on loopback: it checks every request's signature with
/// the endpoint's secret, answers as its script says (a status, or a stall past the
/// server's timeout), and keeps what arrived, in arrival order.
final class WebhookReceiver: Sendable {
    /// How to answer one request.
    enum Answer: Sendable {
        case status(Int)
        /// Waits this long, then answers 200 (past the server's timeout: a lost answer).
        case stall(TimeAmount)
        /// Answers 307 with this `Location`.
        case redirect(String)
    }

    /// One request that arrived.
    struct Arrival: Sendable {
        var event: WebhookEvent
        /// The attempt number the header says.
        var attempt: Int
        /// Whether its signature checked out with the secret and a recent timestamp.
        var verified: Bool
        /// What it was answered.
        var answered: Int
    }

    /// The endpoint's secret, set once the server has made it.
    let secret = Locked<String>("")
    /// Chooses the answer from the event and how many times its id arrived before (0 first).
    let script: Locked<@Sendable (WebhookEvent, Int) -> Answer>
    let arrivals = Locked<[Arrival]>([])
    /// Requests for one id that overlapped another request for the same id.
    let overlaps = Locked<Int>(0)
    private let inFlight = Locked<[String: Int]>([:])
    private let channel = Locked<(any Channel)?>(nil)

    init(script: @escaping @Sendable (WebhookEvent, Int) -> Answer = { _, _ in .status(200) }) {
        self.script = Locked(script)
    }

    /// A loopback port nothing listens on now (bound, then closed).
    static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }

    /// Starts listening on `port` (0: any); returns the port.
    @discardableResult
    func start(port: Int = 0) async throws -> Int {
        let bound = try await LoopbackHTTPServer.listen(port: port) { head, body, reply in
            guard let (answer, id) = self.arrived(head: head, body: body) else {
                reply.send(status: 400)
                return
            }
            switch answer {
            case .status(let code): reply.send(status: code) { self.finished(id) }
            case .redirect(let location): reply.send(status: 307, headers: [("Location", location)]) { self.finished(id) }
            case .stall(let delay): reply.send(status: 200, after: delay) { self.finished(id) }
            }
        }
        channel.withLock { $0 = bound }
        return bound.localAddress?.port ?? 0
    }

    /// Stops listening.
    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// The ids that were answered 2xx, each once, in the order they first were.
    var handled: [WebhookEvent] {
        var seen = Set<String>()
        return arrivals.value.filter { (200..<300).contains($0.answered) && seen.insert($0.event.id).inserted }.map(\.event)
    }

    /// Checks a request and picks its answer; `nil` when it does not parse.
    private func arrived(head: HTTPRequestHead, body: Data) -> (Answer, String)? {
        guard let event = try? WireCoding.decode(WebhookEvent.self, from: body) else { return nil }
        var verified = false
        if let header = head.headers.first(name: WebhookHeaders.signature), let parsed = WebhookHeaders.parse(header),
           abs(parsed.timestamp - Int64(Date().timeIntervalSince1970)) <= 300 {
            let expected = HMAC<SHA256>.authenticationCode(for: WebhookHeaders.signedPayload(timestamp: parsed.timestamp, body: body),
                                                           using: SymmetricKey(data: Data(secret.value.utf8)))
            let hex = expected.map { String(format: "%02x", $0) }.joined()
            verified = parsed.signatures.contains(hex) && head.headers.first(name: WebhookHeaders.id) == event.id
        }
        let before = arrivals.withLock { list in list.count { $0.event.id == event.id } }
        let answer = script.value(event, before)
        let status: Int = switch answer {
        case .status(let code): code
        case .stall: 200
        case .redirect: 307
        }
        arrivals.withLock {
            $0.append(Arrival(event: event, attempt: Int(head.headers.first(name: WebhookHeaders.attempt) ?? "") ?? 0, verified: verified, answered: status))
        }
        let overlapping = inFlight.withLock { flights -> Bool in
            flights[event.id, default: 0] += 1
            return flights[event.id, default: 0] > 1
        }
        if overlapping { overlaps.withLock { $0 += 1 } }
        return (answer, event.id)
    }

    private func finished(_ id: String) {
        inFlight.withLock { $0[id, default: 1] -= 1 }
    }
}
