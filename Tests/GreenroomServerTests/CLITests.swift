import Foundation
import Greenroom
import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("The greenroom command", .wholeRun)
struct CLITests {
    @Test("serve: flags, secret and database files of mode 0600 in a directory of 0700, health, and a graceful stop on SIGTERM that turns /ready to 503 for the unready delay first, a second SIGTERM ending the delay")
    func serve() async throws {
        let directory = TestServer.makeDataDirectory() + "/nested/data"
        // A delay longer than the test could take, so that the node is sure to be still in it
        // on a loaded machine: the second SIGTERM below ends it.
        let (server, baseURL) = try await CLI.serve(["--port", "0", "--data-dir", directory, "--unready-delay", "3600"])
        let base = baseURL.absoluteString
        let output = server.output
        #expect(output.contains("\(directory)/app-secret"))
        #expect(output.contains("\(directory)/api-key"))
        // The secrets and the database (with its write-ahead log files) are the owner's only.
        for file in ["app-secret", "api-key", "greenroom.sqlite", "greenroom.sqlite-wal", "greenroom.sqlite-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: "\(directory)/\(file)")
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(file) mode")
        }
        let folder = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((folder[.posixPermissions] as? NSNumber)?.intValue == 0o700, "data directory mode")
        let (data, status) = try await HTTPTransport.data(for: URLRequest(url: URL(string: base + "/health")!))
        #expect(status == 200 && String(decoding: data, as: UTF8.self).contains("ok"))
        // The metrics need the API key.
        let (_, anonymous) = try await HTTPTransport.data(for: URLRequest(url: URL(string: base + "/metrics")!))
        #expect(anonymous == 401)
        var scrape = URLRequest(url: URL(string: base + "/metrics")!)
        let key = try String(contentsOfFile: "\(directory)/api-key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        scrape.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        let (metrics, metricsStatus) = try await HTTPTransport.data(for: scrape)
        #expect(metricsStatus == 200 && String(decoding: metrics, as: UTF8.self).contains("greenroom_connections"))

        let (_, ready) = try await HTTPTransport.data(for: URLRequest(url: URL(string: base + "/ready")!))
        #expect(ready == 200)

        server.process.send(SIGTERM)  // SIGTERM
        try await eventually("the node is unready") {
            (try? await HTTPTransport.data(for: URLRequest(url: URL(string: base + "/ready")!)))?.1 == 503
        }
        let (_, alive) = try await HTTPTransport.data(for: URLRequest(url: URL(string: base + "/health")!))
        #expect(alive == 200, "still serving during the unready delay")
        #expect(server.process.exit == nil)
        server.process.send(SIGTERM)
        try await withTimeout(.seconds(20), "a second SIGTERM ends the delay and serve stops") { try await server.waitForExit() }
        #expect(server.process.exit == .exited(0))
        #expect(server.output.contains("Greenroom stopped"))

        // The same settings from the environment.
        let fromEnv = try await CLI.start(["serve"], environment: ["GREENROOM_PORT": "0", "GREENROOM_DATA_DIR": directory])
        try await eventually("the server starts from the environment") { fromEnv.output.contains("is listening on") }
        #expect(!fromEnv.output.contains("(new)"), "the secrets were made again")
        fromEnv.process.send(SIGINT)  // SIGINT
        try await withTimeout(.seconds(20), "serve stops on SIGINT") { try await fromEnv.waitForExit() }
        #expect(fromEnv.process.exit == .exited(0))

        let bad = try await CLI.run(["serve", "--port", "70000", "--data-dir", directory])
        #expect(bad.status != 0)

        // An app secret an operator wrote too short for HS256 stops the server and the token
        // verb with a sentence naming the file, instead of signing with it.
        try "short-secret\n".write(toFile: "\(directory)/app-secret", atomically: true, encoding: .utf8)
        let short = try await CLI.run(["serve", "--port", "0", "--data-dir", directory])
        #expect(short.status != 0)
        #expect((short.stdout + short.stderr).contains("app-secret is 12 bytes; it must be at least 32"), "\(short.stderr)")
        let token = try await CLI.run(["token", "alice", "--data-dir", directory])
        #expect(token.status != 0)
        #expect((token.stdout + token.stderr).contains("it must be at least 32"), "\(token.stderr)")
    }

    @Test("token, call and listen against a running server")
    func clientVerbs() async throws {
        try await withServer { server in
            let common = ["--data-dir", server.dataDirectory, "--server", server.url.absoluteString]

            let token = try await CLI.run(["token", "alice", "--data-dir", server.dataDirectory, "--ttl", "120", "--grant", "app:news"])
            #expect(token.status == 0)
            let client = GreenroomClient(serverURL: server.url)
            try await client.connect(token: token.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            _ = try await client.subscribe(to: "app:news")
            await client.disconnect()

            let me = try await CLI.run(["call", "user.me", "--user", "alice"] + common)
            #expect(me.status == 0, "\(me.stderr)")
            #expect(try RawJSON(json: me.stdout)["id"]?.stringValue == "alice")

            let update = try await CLI.run(["call", "user.partialUpdate", #"{"set":{"nickname":"Alice"}}"#, "--user", "alice"] + common)
            #expect(try RawJSON(json: update.stdout)["nickname"]?.stringValue == "Alice")

            let missing = try await CLI.run(["call", "user.get", #"{"id":"nobody"}"#, "--user", "alice"] + common)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("notFound"))
            #expect(missing.stdout.isEmpty)

            let badJSON = try await CLI.run(["call", "user.get", "{nope", "--user", "alice"] + common)
            #expect(badJSON.status != 0)

            for index in 1...3 { try await server.server.publish(stream: "app:news", type: "story", data: ["n": .number(Double(index))]) }
            let listen = try await CLI.run(["listen", "app:news", "--since", "0", "--count", "3", "--user", "alice", "--grant", "app:news"] + common)
            #expect(listen.status == 0, "\(listen.stderr)")
            let lines = listen.stdout.split(separator: "\n").map { try? RawJSON(json: String($0)) }
            #expect(lines.map { $0?["offset"]?.numberValue } == [1, 2, 3])
            #expect(lines.first??["type"]?.stringValue == "story")

            let live = try await CLI.start(["listen", "app:news", "--count", "1", "--user", "bob", "--grant", "app:news"] + common)
            try await eventually("the listener subscribed") {
                (try? await server.rest("GET", "/metrics")).map { $0.1.stringValue?.contains(#"op="stream.subscribe",outcome="ok"} 3"#) == true } ?? false
            }
            let (_, published) = try await server.rest("POST", "/v1/streams/app:news/events", body: ["type": "breaking", "data": "live"])
            try await withTimeout(.seconds(20), "listen prints the live event") { try await live.waitForExit() }
            #expect(try RawJSON(json: live.output.trimmingCharacters(in: .whitespacesAndNewlines))["offset"] == published["offset"])

            let denied = try await CLI.run(["listen", "app:news", "--count", "1", "--user", "carol"] + common)
            #expect(denied.status == 1 && denied.stderr.contains("permissionDenied"))
        }
    }

    @Test("call creates a channel and sends a message; listen shows it")
    func chatFromTheCommandLine() async throws {
        try await withServer { server in
            let common = ["--data-dir", server.dataDirectory, "--server", server.url.absoluteString]
            let created = try await CLI.run(["call", "channel.create", #"{"id":"cli","name":"From the shell"}"#, "--user", "alice"] + common)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(try RawJSON(json: created.stdout)["name"]?.stringValue == "From the shell")
            let sent = try await CLI.run(["call", "message.send", #"{"channelId":"cli","text":"hello from the CLI","extraData":{"mood":"fine"}}"#, "--user", "alice"] + common)
            #expect(sent.status == 0, "\(sent.stderr)")
            let messageId = try RawJSON(json: sent.stdout)["id"]?.stringValue
            let listen = try await CLI.run(["listen", "channel:cli", "--since", "0", "--count", "1", "--user", "alice"] + common)
            #expect(listen.status == 0, "\(listen.stderr)")
            let event = try RawJSON(json: listen.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(event["type"]?.stringValue == "message.new")
            #expect(event["data"]?["message"]?["text"]?.stringValue == "hello from the CLI")
            #expect(event["data"]?["message"]?["id"]?.stringValue == messageId)
            // Someone who is not a member is refused, with the code.
            let stranger = try await CLI.run(["listen", "channel:cli", "--count", "1", "--user", "eve"] + common)
            #expect(stranger.status == 1 && stranger.stderr.contains("notChannelMember"), "\(stranger.stderr)")
        }
    }
}
