import Crypto
import Foundation
import GreenroomCore
import GreenroomProtocol

/// A webhook endpoint as a destination of the outbox: each job is one signed POST.
package struct WebhookDestination: OutboxDestination {
    package let endpoint: WebhookEndpointRecord
    /// How long an attempt waits for the answer.
    package let timeout: TimeInterval
    /// Whether the endpoint may resolve to a non-public address (``WebhookAddressGuard``).
    package let allowPrivateAddresses: Bool
    package let metrics: WebhookMetrics
    /// The server's client for webhooks: it follows no redirect (an endpoint answering 3xx
    /// has failed the attempt), so an endpoint cannot send the server elsewhere.
    package let http: any OutboundHTTP

    package var id: String { endpoint.id }

    package func deliver(_ job: OutboxJobRecord) async -> DeliveryOutcome {
        let failure = await send(job)
        metrics.attempt(succeeded: failure == nil, number: job.attempts + 1)
        return failure.map(DeliveryOutcome.failed) ?? .delivered
    }

    /// The most of an answer's body that is read (then it is dropped).
    package static let answerLimit = 64 * 1024

    /// POSTs a job's event to its endpoint, signed; `nil` when a 2xx came back in time, else
    /// what went wrong.
    package func send(_ job: OutboxJobRecord) async -> String? {
        if !allowPrivateAddresses, URL(string: endpoint.url)?.host == nil { return "the endpoint's URL has no host" }
        do {
            let body = try WireCoding.encode(WebhookEvent(job.event))
            let timestamp = Int64(Date().timeIntervalSince1970)
            let request = OutboundRequest(url: endpoint.url, headers: [
                ("Content-Type", "application/json"),
                ("User-Agent", "Greenroom-Webhooks/1"),
                (WebhookHeaders.id, WebhookEvent.id(of: job.event)),
                (WebhookHeaders.attempt, String(job.attempts + 1)),
                (WebhookHeaders.signature, "t=\(timestamp),v1=\(Self.signature(secret: endpoint.secret, timestamp: timestamp, body: body))"),
            ], body: body, timeout: timeout, publicAddressesOnly: !allowPrivateAddresses)
            let answer = try await http.post(request, answerLimit: Self.answerLimit)
            return (200..<300).contains(answer.status) ? nil : "HTTP \(answer.status)"
        } catch OutboundHTTPError.refused(let refusal) {
            return "refused: \(refusal) (GREENROOM_WEBHOOK_ALLOW_PRIVATE=1 allows it)"
        } catch {
            return "\(error)"
        }
    }

    /// The hex HMAC-SHA256 of `"<timestamp>.<body>"` keyed with `secret`.
    package static func signature(secret: String, timestamp: Int64, body: Data) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: WebhookHeaders.signedPayload(timestamp: timestamp, body: body),
                                                   using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }
}
