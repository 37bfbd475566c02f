import AsyncHTTPClient
import Foundation
import Greenroom
@testable import GreenroomServer
import NIOSSL
import Testing

/// `serve --tls-cert/--tls-key`: HTTPS and `wss://`, with a CA made by the test.
@Suite("TLS: HTTPS and wss:// with the server's own certificate", .wholeRun)
struct TLSTests {
    /// A server on `localhost` with a certificate from `authority`.
    func withTLSServer<T>(_ authority: TestCertificateAuthority, hostName: String = "localhost",
                          _ body: (TestServer, URL) async throws -> T) async throws -> T {
        let directory = TestServer.makeDataDirectory()
        let files = try authority.issueServerCertificate(for: hostName, in: directory)
        return try await withServer({ config in
            config.tlsCertificatePath = files.certificate
            config.tlsKeyPath = files.key
        }) { server in
            #expect(server.server.baseURL.scheme == "https" && server.server.webSocketURL.scheme == "wss")
            return try await body(server, URL(string: "https://localhost:\(server.port)")!)
        }
    }

    func client(_ url: URL, trusting authority: TestCertificateAuthority?) throws -> GreenroomClient {
        var config = ClientConfiguration(serverURL: url)
        config.commandTimeout = .seconds(30)
        config.initialReconnectDelay = .milliseconds(50)
        if let authority {
            config.tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(try authority.certificatePEM().utf8), format: .pem)])
        }
        return GreenroomClient(configuration: config)
    }

    @Test("the SDK over wss:// with a CA it is told to trust: commands answered and events delivered; REST over HTTPS")
    func trusted() async throws {
        let authority = try TestCertificateAuthority()
        try await withTLSServer(authority) { server, url in
            let client = try client(url, trusting: authority)
            try await client.connect(token: try await server.token("alice", grants: ["app:secure"]))
            #expect(client.connectionState == .connected)
            let subscription = try await client.subscribe(to: "app:secure")
            for index in 1...3 {
                try await server.server.publish(stream: "app:secure", data: ["n": .number(Double(index))])
            }
            let (events, _) = try await collect(subscription, count: 3)
            #expect(events.map { $0.data["n"]?.numberValue } == [1, 2, 3])
            let me = try await client.send(UserOperation.me, args: EmptyResult())
            #expect(me.id == "alice")
            // The server's close frame and the client's reconnect, over TLS: nothing missed.
            #expect(server.server.disconnectClients(userId: "alice", code: .serverRestarting) == 1)
            for index in 4...6 {
                try await server.server.publish(stream: "app:secure", data: ["n": .number(Double(index))])
            }
            let (later, recoveries) = try await collect(subscription, count: 3)
            #expect(later.map { $0.data["n"]?.numberValue } == [4, 5, 6])
            #expect(recoveries.allSatisfy { $0 })
            await client.disconnect()

            // REST over HTTPS, from a client that trusts the same CA.
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(try authority.certificatePEM().utf8), format: .pem)])
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
            do {
                var request = HTTPClientRequest(url: url.absoluteString + "/v1/users/alice")
                request.headers.add(name: "Authorization", value: "Bearer \(server.apiKey)")
                let response = try await http.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                #expect(response.status.code == 200)
                #expect(try RawJSON(json: Data(buffer: body))["id"]?.stringValue == "alice")
                let health = try await http.execute(HTTPClientRequest(url: url.absoluteString + "/health"), timeout: .seconds(30))
                #expect(health.status.code == 200)
                try await http.shutdown()
            } catch {
                try? await http.shutdown()
                throw error
            }
        }
    }

    @Test("an untrusted certificate, or one made for another host, ends the first connection with tlsFailure; the server serves on")
    func refused() async throws {
        let authority = try TestCertificateAuthority()
        try await withTLSServer(authority) { server, url in
            let token = try await server.token("mallory")
            // The system's trust roots do not include the test's CA.
            let untrusting = try client(url, trusting: nil)
            let error = await #expect(throws: GreenroomError.self) { try await untrusting.connect(token: token) }
            #expect(error?.errorCode == .tlsFailure)
            #expect(error?.message.contains("TLS handshake with localhost failed") == true)
            #expect(untrusting.connectionState == .disconnected(error))

            // A CA the client trusts, but a server certificate for another name.
            let otherDirectory = TestServer.makeDataDirectory()
            let other = try authority.issueServerCertificate(for: "other.example", in: otherDirectory)
            // Started inside this test's turn (a second withServer would queue for another).
            let wrongName = try await TestServer.start { config in
                config.tlsCertificatePath = other.certificate
                config.tlsKeyPath = other.key
            }
            let misnamed = try client(URL(string: "https://localhost:\(wrongName.port)")!, trusting: authority)
            let misnamedError = await #expect(throws: GreenroomError.self) { try await misnamed.connect(token: try await wrongName.token("mallory")) }
            #expect(misnamedError?.errorCode == .tlsFailure)
            try await wrongName.shutdown()

            // A plain ws:// client is not served by a TLS server, and the server lives on.
            var plain = ClientConfiguration(serverURL: URL(string: "http://localhost:\(server.port)")!)
            plain.connectTimeout = .seconds(2)
            plain.commandTimeout = .seconds(3)
            let plainClient = GreenroomClient(configuration: plain)
            await #expect(throws: GreenroomError.self) { try await plainClient.connect(token: token) }
            await plainClient.disconnect()

            let trusting = try client(url, trusting: authority)
            try await trusting.connect(token: token)
            #expect(trusting.connectionState == .connected)
            await trusting.disconnect()
        }
    }

    @Test("greenroom serve --tls-cert/--tls-key listens on https:// and the SDK connects over wss://; greenroom call does with --ca-cert, and not without")
    func serveCommand() async throws {
        try await HeavyTests.shared {
            let authority = try TestCertificateAuthority()
            let directory = TestServer.makeDataDirectory()
            let files = try authority.issueServerCertificate(for: "localhost", in: directory)
            let (server, base) = try await CLI.serve(["--port", "0", "--data-dir", directory, "--tls-cert", files.certificate, "--tls-key", files.key])
            #expect(base.scheme == "https")
            #expect(server.output.contains("TLS: on"))
            let token = try await CLI.run(["token", "carol", "--data-dir", directory]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let client = try client(URL(string: "https://localhost:\(base.port ?? 0)")!, trusting: authority)
            try await client.connect(token: token)
            #expect(try await client.send(UserOperation.me, args: EmptyResult()).id == "carol")
            await client.disconnect()
            // greenroom call trusts the private CA when told to, and only then.
            let caFile = directory + "/ca.pem"
            try authority.certificatePEM().write(toFile: caFile, atomically: true, encoding: .utf8)
            let address = "https://localhost:\(base.port ?? 0)"
            let trusted = try await CLI.run(["call", "user.me", "--server", address, "--user", "dora", "--data-dir", directory, "--ca-cert", caFile])
            #expect(trusted.status == 0 && trusted.stdout.contains("\"dora\""), "\(trusted.stdout) \(trusted.stderr)")
            let untrusted = try await CLI.run(["call", "user.me", "--server", address, "--user", "dora", "--data-dir", directory])
            #expect(untrusted.status != 0 && untrusted.stderr.contains("TLS"), "\(untrusted.stdout) \(untrusted.stderr)")
            server.process.send(SIGTERM)
            try await server.waitForExit()
            #expect(server.process.exit == .exited(0))
        }
    }

    @Test("TLS settings that cannot work stop the server at start with a sentence naming the file")
    func badSettings() async throws {
        var onlyCertificate = ServerConfiguration()
        onlyCertificate.tlsCertificatePath = "/nonexistent/cert.pem"
        #expect(throws: GreenroomServerError.self) { try onlyCertificate.validate() }

        var missing = ServerConfiguration()
        missing.dataDirectory = TestServer.makeDataDirectory()
        missing.port = 0
        missing.tlsCertificatePath = "/nonexistent/cert.pem"
        missing.tlsKeyPath = "/nonexistent/key.pem"
        do {
            _ = try await GreenroomServer.start(configuration: missing)
            Issue.record("a server started without its certificate")
        } catch let error as GreenroomServerError {
            #expect("\(error)".contains("/nonexistent/cert.pem"))
        }

        let environment = try ServerConfiguration.fromEnvironment(["GREENROOM_TLS_CERT": "/c.pem", "GREENROOM_TLS_KEY": "/k.pem"])
        #expect(environment.tlsCertificatePath == "/c.pem" && environment.tlsKeyPath == "/k.pem")
    }
}
