import Foundation

/// A POST the server makes to another service (a webhook endpoint, APNs).
package struct OutboundRequest: Sendable {
    /// Where it goes.
    package var url: String
    /// Its headers, in order.
    package var headers: [(name: String, value: String)]
    /// Its body.
    package var body: Data
    /// How long the answer may take.
    package var timeout: TimeInterval
    /// Whether the host must resolve to public addresses only (``WebhookAddressGuard``):
    /// checked before each request, since a name may resolve elsewhere later.
    package var publicAddressesOnly = false

    /// A POST of `body` to `url` with `headers`, answered within `timeout` seconds.
    package init(url: String, headers: [(name: String, value: String)], body: Data, timeout: TimeInterval, publicAddressesOnly: Bool = false) {
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.publicAddressesOnly = publicAddressesOnly
    }
}

/// What came back: the status and the start of the body.
package struct OutboundAnswer: Sendable {
    /// The HTTP status.
    package var status: Int
    /// The body, up to the limit the request was made with.
    package var body: Data

    /// An answer with `status` and `body`.
    package init(status: Int, body: Data) {
        self.status = status
        self.body = body
    }
}

/// Why a request got no answer, beside the transport's own errors.
package enum OutboundHTTPError: Error, CustomStringConvertible {
    /// No answer within the request's timeout.
    case timedOut(TimeInterval)
    /// The destination may not be called (``OutboundRequest/publicAddressesOnly``).
    case refused(String)

    package var description: String {
        switch self {
        case .timedOut(let seconds): "no answer within \(seconds) s"
        case .refused(let reason): "refused: \(reason)"
        }
    }
}

/// The server's HTTP client as the capabilities use it: the server gives one to each that
/// calls out, so they know no network library.
package protocol OutboundHTTP: Sendable {
    /// POSTs `request` and returns the answer's status and at most `answerLimit` bytes of
    /// its body (the rest is read and dropped, so the connection can be used again).
    func post(_ request: OutboundRequest, answerLimit: Int) async throws -> OutboundAnswer
    /// Lets go of the client's connections.
    func shutdown() async
}

/// The HTTP clients the server gives the capabilities that call out.
package struct OutboundClients: Sendable {
    /// For webhooks: no redirects followed.
    package let webhooks: any OutboundHTTP
    /// For APNs: HTTP/2.
    package let apns: any OutboundHTTP

    /// The clients for webhooks and APNs.
    package init(webhooks: any OutboundHTTP, apns: any OutboundHTTP) {
        self.webhooks = webhooks
        self.apns = apns
    }
}
