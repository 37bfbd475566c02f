import AsyncHTTPClient
import Crypto
import Foundation
import GreenroomProtocol
import NIOCore
import NIOHTTP1

/// A webhook endpoint as a destination of the outbox: each job is one signed POST.
struct WebhookDestination: OutboxDestination {
    let endpoint: WebhookEndpointRecord
    /// How long an attempt waits for the answer.
    let timeout: TimeInterval
    /// Whether the endpoint may resolve to a non-public address (``WebhookAddressGuard``).
    let allowPrivateAddresses: Bool
    let metrics: WebhookMetrics

    /// The client deliveries go through: it follows no redirect (an endpoint answering 3xx
    /// has failed the attempt), so an endpoint cannot send the server elsewhere.
    static let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup,
                                   configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))

    var id: String { endpoint.id }

    func deliver(_ job: OutboxJobRecord) async -> DeliveryOutcome {
        let failure = await send(job)
        metrics.attempt(succeeded: failure == nil, number: job.attempts + 1)
        return failure.map(DeliveryOutcome.failed) ?? .delivered
    }

    /// The most of an answer's body that is read (then it is dropped).
    static let answerLimit = 64 * 1024

    /// POSTs a job's event to its endpoint, signed; `nil` when a 2xx came back in time, else
    /// what went wrong.
    func send(_ job: OutboxJobRecord) async -> String? {
        if !allowPrivateAddresses {
            guard let host = URL(string: endpoint.url)?.host else { return "the endpoint's URL has no host" }
            if let refusal = await WebhookAddressGuard.check(host: host) {
                return "refused: \(refusal) (GREENROOM_WEBHOOK_ALLOW_PRIVATE=1 allows it)"
            }
        }
        do {
            let body = try WireCoding.encode(WebhookEvent(job.event))
            let timestamp = Int64(Date().timeIntervalSince1970)
            var request = HTTPClientRequest(url: endpoint.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "Greenroom-Webhooks/1")
            request.headers.add(name: WebhookHeaders.id, value: WebhookEvent.id(of: job.event))
            request.headers.add(name: WebhookHeaders.attempt, value: String(job.attempts + 1))
            request.headers.add(name: WebhookHeaders.signature,
                                value: "t=\(timestamp),v1=\(Self.signature(secret: endpoint.secret, timestamp: timestamp, body: body))")
            request.body = .bytes(ByteBuffer(data: body))
            let timeout = TimeAmount.milliseconds(Int64((timeout * 1000).rounded()))
            let response = try await Self.client.execute(request, timeout: timeout)
            // Read (a bounded part of) the answer so the connection can be used again.
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if read > Self.answerLimit { break }
            }
            return (200..<300).contains(Int(response.status.code)) ? nil : "HTTP \(response.status.code)"
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            return "no answer within \(timeout) s"
        } catch {
            return "\(error)"
        }
    }

    /// The hex HMAC-SHA256 of `"<timestamp>.<body>"` keyed with `secret`.
    static func signature(secret: String, timestamp: Int64, body: Data) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: WebhookHeaders.signedPayload(timestamp: timestamp, body: body),
                                                   using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }
}
