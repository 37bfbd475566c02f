import Foundation
import GreenroomProtocol
import Greenroom
import GreenroomServer
import Testing

@Suite("Tokens and the WebSocket upgrade", .wholeRun)
struct AuthTests {
    /// A token whose header says `alg: none` and carries no signature.
    static func unsignedToken(user: String) -> String {
        func b64(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        }
        let exp = Int(Date().timeIntervalSince1970) + 3600
        return b64(#"{"alg":"none","typ":"JWT"}"#) + "." + b64(#"{"sub":"\#(user)","exp":\#(exp),"iat":0}"#) + "."
    }

    func refusal(_ server: TestServer, headers: [String: String], path: String = "/v1/connect") async throws -> (Int, GreenroomError?) {
        let socket = try RawSocket(port: server.port)
        let (status, body) = try await socket.upgrade(path: path, headers: headers)
        struct Body: Decodable { var error: GreenroomError }
        return (status, try? WireCoding.decoder.decode(Body.self, from: Data(body.utf8)).error)
    }

    @Test("every kind of bad token is refused before the upgrade with 401 and a JSON error")
    func refusals() async throws {
        try await withServer { server in
            let expired = try await server.server.token(userId: "alice", ttl: -10)
            let other = try await TestServer.start()
            let wronglySigned = try await other.token("alice")
            try await other.shutdown()
            let valid = try await server.token("alice")
            let tampered = valid.split(separator: ".").enumerated().map { $0.offset == 1 ? String($0.element.dropLast(2)) + "xx" : String($0.element) }.joined(separator: ".")
            let cases: [(String, [String: String], ErrorCode)] = [
                ("missing", [:], .notAuthenticated),
                ("malformed", ["Authorization": "Bearer not-a-jwt"], .invalidToken),
                ("not bearer", ["Authorization": "Basic YWxpY2U6cHc="], .invalidToken),
                ("expired", ["Authorization": "Bearer \(expired)"], .tokenExpired),
                ("wrongly signed", ["Authorization": "Bearer \(wronglySigned)"], .invalidToken),
                ("tampered", ["Authorization": "Bearer \(tampered)"], .invalidToken),
                ("alg none", ["Authorization": "Bearer \(Self.unsignedToken(user: "alice"))"], .invalidToken),
            ]
            for (name, headers, code) in cases {
                let (status, error) = try await refusal(server, headers: headers)
                #expect(status == 401, "\(name): status \(status)")
                #expect(error?.code == code.rawValue, "\(name): \(String(describing: error))")
            }
            let (status, error) = try await refusal(server, headers: [:], path: "/v1/connect?token=\(expired)")
            #expect(status == 401)
            #expect(error?.code == ErrorCode.tokenExpired.rawValue)
            #expect(server.server.connectionCount == 0)
        }
    }

    @Test("a valid token connects, from the header or the query parameter")
    func validTokenConnects() async throws {
        try await withServer { server in
            let token = try await server.token("alice")
            let header = try RawSocket(port: server.port)
            #expect(try await header.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(token)"]).status == 101)
            let query = try RawSocket(port: server.port)
            #expect(try await query.upgrade(path: "/v1/connect?token=\(token)").status == 101)
            try query.sendText(#"{"id":1,"op":"user.me"}"#)
            let reply = try RawJSON(json: try await query.readText())
            #expect(reply["re"]?.numberValue == 1)
            #expect(reply["result"]?["id"]?.stringValue == "alice")

            let client = try await server.client("bob")
            #expect(client.connectionState == .connected)
            #expect(try await client.currentUserController().currentUser().id == "bob")
            await client.disconnect()
        }
    }

    @Test("the SDK reports a refused token, and uses its provider for a fresh one")
    func sdkTokenHandling() async throws {
        try await withServer { server in
            let expired = try await server.server.token(userId: "carol", ttl: -1)
            let lonely = GreenroomClient(serverURL: server.url)
            await #expect(throws: GreenroomError.self) { try await lonely.connect(token: expired) }
            guard case .disconnected(let reason) = lonely.connectionState else {
                Issue.record("expected disconnected, got \(lonely.connectionState)")
                return
            }
            #expect(reason?.is(.tokenExpired) == true)

            let calls = Counter()
            let client = GreenroomClient(serverURL: server.url)
            let fresh = try await server.token("carol")
            try await client.connect(token: expired) {
                calls.increment()
                return fresh
            }
            #expect(client.connectionState == .connected)
            #expect(calls.value == 1)
            await client.disconnect()
        }
    }

    @Test("a token that expires while connected ends the connection with 4100; the provider renews it")
    func expiryWhileConnected() async throws {
        try await withServer { server in
            // A token's expiry is in whole seconds (it may live up to one less than asked). A
            // machine busy with the whole suite can take longer than that to upgrade: a token
            // that expired first is refused with 401, as it should be, and the next is given
            // longer.
            var closedWith: Int?
            for ttl in [6, 15, 40] as [Int] {
                let short = try await server.server.token(userId: "dave", ttl: TimeInterval(ttl))
                let socket = try RawSocket(port: server.port)
                let (status, body) = try await socket.upgrade(path: "/v1/connect", headers: ["Authorization": "Bearer \(short)"])
                if status == 401, body.contains("tokenExpired") { continue }
                #expect(status == 101, "\(status) \(body)")
                closedWith = try await socket.readUntilClosed(timeout: .seconds(ttl + 15))
                break
            }
            #expect(closedWith == CloseCode.tokenExpired.rawValue)

            let calls = Counter()
            let client = GreenroomClient(serverURL: server.url)
            let renewed = try await server.token("dave")
            try await client.connect(token: try await server.server.token(userId: "dave", ttl: 2)) {
                calls.increment()
                return renewed
            }
            try await eventually("the client renewed its token") { calls.value >= 1 && client.connectionState == .connected }
            #expect(try await client.currentUserController().currentUser().id == "dave")
            await client.disconnect()
        }
    }

    @Test("REST refuses a missing or wrong API key")
    func apiKey() async throws {
        try await withServer { server in
            let (missing, missingBody) = try await server.rest("GET", "/v1/users", key: "")
            #expect(missing == 401)
            #expect(missingBody["error"]?["code"]?.numberValue == Double(ErrorCode.notAuthenticated.rawValue))
            let (wrong, wrongBody) = try await server.rest("GET", "/v1/users", key: "grk_wrong")
            #expect(wrong == 401)
            #expect(wrongBody["error"]?["name"]?.stringValue == "invalidToken")
            let (ok, _) = try await server.rest("GET", "/v1/users")
            #expect(ok == 200)
            let (health, body) = try await server.rest("GET", "/health", key: "")
            #expect(health == 200 && body["status"]?.stringValue == "ok")
        }
    }
}

/// A thread-safe counter for callbacks.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

extension AuthTests {
    @Test("a rotation's window: with app-secret.previous and api-key.previous kept, tokens and keys of either are accepted; without them only the new ones")
    func rotation() async throws {
        let directory = TestServer.makeDataDirectory()
        let old = try await TestServer.start(dataDirectory: directory)
        let oldToken = try await old.token("alice")
        let oldKey = old.apiKey
        try await old.shutdown()
        // The operator rotates: the old files become .previous, new ones are made.
        for name in ["app-secret", "api-key"] {
            try FileManager.default.moveItem(atPath: "\(directory)/\(name)", toPath: "\(directory)/\(name).previous")
        }
        let rotated = try await TestServer.start(dataDirectory: directory)
        #expect(rotated.apiKey != oldKey)
        let newToken = try await rotated.token("alice")
        for token in [oldToken, newToken] {
            #expect(try await rotated.rest("GET", "/v1/connect", key: token).0 == 200)
        }
        for key in [oldKey, rotated.apiKey] {
            #expect(try await rotated.rest("GET", "/v1/users", key: key).0 == 200)
        }
        #expect(try await rotated.rest("GET", "/v1/users", key: "grk_wrong").0 == 401)
        let newKey = rotated.apiKey
        try await rotated.shutdown()
        // The window closes: the .previous files go.
        for name in ["app-secret", "api-key"] { try FileManager.default.removeItem(atPath: "\(directory)/\(name).previous") }
        let done = try await TestServer.start(dataDirectory: directory)
        #expect(try await done.rest("GET", "/v1/connect", key: oldToken).0 == 401)
        #expect(try await done.rest("GET", "/v1/connect", key: newToken).0 == 200)
        #expect(try await done.rest("GET", "/v1/users", key: oldKey).0 == 401)
        #expect(try await done.rest("GET", "/v1/users", key: newKey).0 == 200)
        try await done.shutdown()
    }
}
