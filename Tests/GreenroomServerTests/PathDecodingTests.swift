import Foundation
import GreenroomProtocol
import GreenroomServer
import Testing

/// Path parameters as generated clients send them: percent-encoded, decoded once by the
/// server on every route.
@Suite("REST path parameters are percent-decoded", .wholeRun)
struct PathDecodingTests {
    @Test("an encoded ':' in a stream name, '@' and '.' in ids, decoded once on publishing, reading, users and channels")
    func encodedParametersAreDecoded() async throws {
        try await withServer { server in
            let (published, event) = try await server.rest("POST", "/v1/streams/app%3Ascores/events", body: ["type": "score", "data": ["home": 2]])
            #expect(published == 201 && event["stream"]?.stringValue == "app:scores", "\(published) \(event)")
            let (toUser, userEvent) = try await server.rest("POST", "/v1/streams/user%3Aalice%40example.com/events", body: ["data": ["hint": "badge"]])
            #expect(toUser == 201 && userEvent["stream"]?.stringValue == "user:alice@example.com", "\(toUser) \(userEvent)")
            let (read, events) = try await server.rest("GET", "/v1/streams/app%3Ascores/events?after=0")
            #expect(read == 200 && events.arrayValue?.count == 1, "\(read) \(events)")
            // Lower-case hex too.
            #expect(try await server.rest("GET", "/v1/streams/app%3ascores/events?after=0").1.arrayValue?.count == 1)

            #expect(try await server.rest("POST", "/v1/users", body: ["id": "alice@example.com", "nickname": "Alice"]).0 == 201)
            let (user, body) = try await server.rest("GET", "/v1/users/alice%40example.com")
            #expect(user == 200 && body["id"]?.stringValue == "alice@example.com", "\(user) \(body)")
            #expect(try await server.rest("POST", "/v1/channels", body: ["createdBy": "alice@example.com", "id": "team.blue"]).0 == 201)
            let (channel, channelBody) = try await server.rest("GET", "/v1/channels/team%2Eblue")
            #expect(channel == 200 && channelBody["id"]?.stringValue == "team.blue", "\(channel) \(channelBody)")
            // Decoded once: %2540 is "%40", not "@".
            let (twice, twiceBody) = try await server.rest("GET", "/v1/users/alice%2540example.com")
            #expect(twice != 200 && twiceBody["error"]?["message"]?.stringValue?.contains("alice%40example.com") == true, "\(twice) \(twiceBody)")
        }
    }

    @Test("a space, an encoded '/', non-ASCII UTF-8 are decoded and then judged as ids; a bad escape is refused with invalidParameterValue")
    func malformedOrForeignParameters() async throws {
        try await withServer { server in
            // Decoded, then refused as a channel id (ids are letters, digits and _-.@): the
            // message shows the decoded text.
            for (path, decoded) in [("/v1/channels/a%20b", "a b"), ("/v1/channels/a%2Fb", "a/b"), ("/v1/users/caf%C3%A9", "café")] {
                let (status, body) = try await server.rest("GET", path)
                #expect(status == 400 || status == 404, "\(path): \(status) \(body)")
                #expect(body["error"]?["message"]?.stringValue?.contains(decoded) == true, "\(path): \(body)")
            }
            // An encoded '/' stays inside its segment: it never reaches another route or a file.
            let (segment, _) = try await server.rest("GET", "/v1/videos/x%2F..%2F..%2Fapi-key/file")
            #expect(segment == 404 || segment == 400, "\(segment)")
            for path in ["/v1/channels/a%zz", "/v1/channels/a%4", "/v1/users/%C3%28", "/v1/streams/app%3/events"] {
                let (status, body) = try await Self.rawGet(server, path)
                #expect(status == 400 && body["error"]?["name"]?.stringValue == "invalidParameterValue", "\(path): \(status) \(body)")
            }
        }
    }

    @Test("every route reads its path parameters through pathParameter, which decodes them: no other code reads context.parameters")
    func everyRouteDecodes() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/GreenroomServer")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?.allObjects as? [URL])
            .filter { $0.pathExtension == "swift" }
        #expect(files.count > 50)
        var raw: [String] = []
        var decoding = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            decoding += text.components(separatedBy: ".pathParameter(").count - 1
            guard file.lastPathComponent != "GreenroomRequestContext.swift" else { continue }
            for marker in ["parameters.get(", "parameters.require(", "parameters.getCatchAll(", "parameters["] where text.contains(marker) {
                raw.append("\(file.lastPathComponent): \(marker)")
            }
        }
        #expect(raw.isEmpty, "path parameters read without decoding: \(raw)")
        #expect(decoding >= 37, "\(decoding) reads through pathParameter")
    }

    /// `GET path` written byte for byte (Foundation's URL would not carry a malformed
    /// escape), with the API key; the status and the JSON body.
    static func rawGet(_ server: TestServer, _ path: String) async throws -> (Int, RawJSON) {
        let socket = try RawSocket(port: server.port)
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(server.apiKey)\r\nConnection: close\r\n\r\n"
        try socket.write(Array(request.utf8))
        var answer = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while !answer.contains("}"), ContinuousClock.now < deadline {
            answer += try await socket.readAnswer(timeout: .seconds(2))
        }
        let status = Int(answer.split(separator: " ").dropFirst().first ?? "") ?? 0
        let body = answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) } ?? ""
        return (status, (try? RawJSON(json: Data(body.utf8))) ?? .string(body))
    }
}
