import Crypto
import Foundation
import GreenroomProtocol
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

/// Apple's push service as its provider API documents it, on loopback: HTTP/2 over TLS (a
/// certificate the test makes), `POST /3/device/<token>` checked the way APNs checks it (the
/// ES256 provider token verified with the test key and its team and key id, the `apns-*`
/// headers, the JSON payload) and answered with APNs's statuses and error bodies.
final class APNsTestServer: Sendable {
    /// One request that arrived.
    struct Push: Sendable {
        var token: String
        var payload: RawJSON
        var headers: [String: String]
        /// The provider token (JWT) it carried.
        var jwt: String
        /// What APNs would have refused it for; empty when it is well formed.
        var problems: [String]
        /// The HTTP version it came over.
        var version: String
        var answered: Int
    }

    /// How the service answers a device: 200, or an error APNs gives.
    enum Answer: Sendable {
        case ok
        case status(Int, reason: String)
    }

    let publicKey: P256.Signing.PublicKey
    let keyId: String
    let teamId: String
    let topic: String
    /// Answers by token and by how many requests for it came before (0 for the first).
    let script: Locked<@Sendable (String, Int) -> Answer>
    let pushes = Locked<[Push]>([])
    private let channel = Locked<(any Channel)?>(nil)

    init(publicKey: P256.Signing.PublicKey, keyId: String, teamId: String, topic: String,
         script: @escaping @Sendable (String, Int) -> Answer = { _, _ in .ok }) {
        self.publicKey = publicKey
        self.keyId = keyId
        self.teamId = teamId
        self.topic = topic
        self.script = Locked(script)
    }

    /// Listens on loopback with the certificate and key at these paths; returns the port.
    func start(certificate: String, key: String) async throws -> Int {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .server) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([HTTP2FramePayloadToHTTP1ServerCodec(), Handler(server: self)])
                        }
                    }.map { _ in }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        channel.withLock { $0 = bound }
        return bound.localAddress?.port ?? 0
    }

    /// Stops listening.
    func stop() async {
        try? await channel.withLock { $0 }?.close()
    }

    /// Checks a request as APNs does, records it, and picks its answer.
    fileprivate func received(head: HTTPRequestHead, body: Data) -> (Int, Data) {
        var problems: [String] = []
        let prefix = "/3/device/"
        let token = head.uri.hasPrefix(prefix) ? String(head.uri.dropFirst(prefix.count)) : ""
        if head.method != .POST || token.isEmpty || !token.allSatisfy(\.isHexDigit) { problems.append("path \(head.method) \(head.uri)") }
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        let jwt = headers["authorization"].flatMap { $0.hasPrefix("bearer ") ? String($0.dropFirst(7)) : nil } ?? ""
        if let problem = verify(jwt) { problems.append(problem) }
        if headers["apns-topic"] != topic { problems.append("apns-topic \(headers["apns-topic"] ?? "none")") }
        if headers["apns-push-type"] != "alert" { problems.append("apns-push-type \(headers["apns-push-type"] ?? "none")") }
        if headers["apns-priority"] != "10" && headers["apns-priority"] != "5" { problems.append("apns-priority") }
        if let expiration = headers["apns-expiration"].flatMap(Int64.init) {
            if expiration != 0 && expiration < Int64(Date().timeIntervalSince1970) { problems.append("apns-expiration in the past") }
        } else if headers["apns-expiration"] != nil {
            problems.append("apns-expiration not a number")
        }
        if let collapse = headers["apns-collapse-id"], collapse.utf8.count > 64 { problems.append("apns-collapse-id over 64 bytes") }
        if body.count > 4096 { problems.append("payload over 4 KB") }
        let payload = (try? RawJSON(json: body)) ?? .nil
        if payload["aps"]?["alert"]?["title"]?.stringValue == nil || payload["aps"]?["alert"]?["body"]?.stringValue == nil {
            problems.append("no aps.alert title and body")
        }
        let before = pushes.withLock { list in list.count { $0.token == token } }
        let answer: Answer = problems.isEmpty ? script.value(token, before) : .status(400, reason: "BadRequest")
        let (status, reply): (Int, Data) = switch answer {
        case .ok: (200, Data())
        case .status(let code, let reason):
            (code, Data("{\"reason\":\"\(reason)\"\(code == 410 ? ",\"timestamp\":\(Int64(Date().timeIntervalSince1970 * 1000))" : "")}".utf8))
        }
        pushes.withLock {
            $0.append(Push(token: token, payload: payload, headers: headers, jwt: jwt, problems: problems,
                           version: "\(head.version.major).\(head.version.minor)", answered: status))
        }
        return (status, reply)
    }

    /// Why APNs would refuse the provider token; `nil` when it verifies.
    private func verify(_ jwt: String) -> String? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = Self.base64URL(parts[0]).flatMap({ try? RawJSON(json: $0) }),
              let claims = Self.base64URL(parts[1]).flatMap({ try? RawJSON(json: $0) }),
              let signature = Self.base64URL(parts[2]) else { return "a provider token that does not parse" }
        guard header["alg"]?.stringValue == "ES256", header["kid"]?.stringValue == keyId else { return "InvalidProviderToken: header \(header)" }
        guard claims["iss"]?.stringValue == teamId, let issued = claims["iat"]?.numberValue,
              abs(Date().timeIntervalSince1970 - issued) < 3600 else { return "InvalidProviderToken: claims \(claims)" }
        guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
              publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)) else { return "InvalidProviderToken: signature" }
        return nil
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let server: APNsTestServer
        var head: HTTPRequestHead?
        var body = Data()

        init(server: APNsTestServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
            case .body(let buffer):
                body.append(contentsOf: buffer.readableBytesView)
            case .end:
                guard let head else { return }
                let (status, reply) = server.received(head: head, body: body)
                var headers = HTTPHeaders()
                headers.add(name: "apns-id", value: UUID().uuidString)
                headers.add(name: "content-length", value: String(reply.count))
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers))), promise: nil)
                if !reply.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: reply)))), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
