import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOSSL

/// The capabilities' outbound HTTP through AsyncHTTPClient: the client is made on the first
/// request and shut down with the work that uses it.
final class AsyncHTTPOutbound: OutboundHTTP {
    private let make: @Sendable () -> HTTPClient
    private let client = Locked<HTTPClient?>(nil)

    private init(make: @escaping @Sendable () -> HTTPClient) {
        self.make = make
    }

    /// Webhooks' client: it follows no redirect, so an endpoint cannot send the server elsewhere.
    static func webhooks() -> AsyncHTTPOutbound {
        AsyncHTTPOutbound {
            HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
        }
    }

    /// APNs' client: HTTP/2, trusting the certificates at `caCertificatePath` too (a test's
    /// APNs).
    static func apns(trusting caCertificatePath: String?) -> AsyncHTTPOutbound {
        AsyncHTTPOutbound {
            var tls = TLSConfiguration.makeClientConfiguration()
            if let caCertificatePath { tls.additionalTrustRoots = [.file(caCertificatePath)] }
            var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
            configuration.httpVersion = .automatic
            return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        }
    }

    func post(_ request: OutboundRequest, answerLimit: Int) async throws -> OutboundAnswer {
        if request.publicAddressesOnly {
            guard let host = URL(string: request.url)?.host else { throw OutboundHTTPError.refused("the URL has no host") }
            if let refusal = await WebhookAddressGuard.check(host: host) { throw OutboundHTTPError.refused(refusal) }
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .POST
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        outgoing.body = .bytes(ByteBuffer(data: request.body))
        do {
            let response = try await httpClient().execute(outgoing, timeout: .milliseconds(Int64((request.timeout * 1000).rounded())))
            var body = Data()
            var read = 0
            for try await chunk in response.body {
                read += chunk.readableBytes
                if body.count < answerLimit { body.append(contentsOf: chunk.readableBytesView.prefix(answerLimit - body.count)) }
                if read > answerLimit { break }
            }
            return OutboundAnswer(status: Int(response.status.code), body: body)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw OutboundHTTPError.timedOut(request.timeout)
        }
    }

    func shutdown() async {
        guard let made = client.withLock({ client -> HTTPClient? in
            defer { client = nil }
            return client
        }) else { return }
        try? await made.shutdown()
    }

    /// The client, made on first use (one of two racing first requests shuts its spare down).
    private func httpClient() -> HTTPClient {
        if let made = client.withLock({ $0 }) { return made }
        let made = make()
        let (kept, spare) = client.withLock { client -> (HTTPClient, HTTPClient?) in
            if let client { return (client, made) }
            client = made
            return (made, nil)
        }
        if let spare { Task { try? await spare.shutdown() } }
        return kept
    }
}
