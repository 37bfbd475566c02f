import Foundation
import Greenroom
import GreenroomServer
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CLITests {
    @Test("backup, migrate and renew-epochs: a backup of a running node, a migrate with progress on stderr and its figures on stdout, a second migrate refused with status 1, epochs renewed")
    func maintenance() async throws {
        guard let admin = await TestEnvironment.postgres(for: "the migrate command") else { return }
        let directory = TestServer.makeDataDirectory()
        let (server, base) = try await CLI.serve(["--port", "0", "--data-dir", directory])
        let key = try String(contentsOfFile: "\(directory)/api-key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        for (path, body) in [("/v1/users", #"{"id":"u1"}"#), ("/v1/channels", #"{"id":"c1","createdBy":"u1","members":["u1"]}"#),
                             ("/v1/channels/c1/messages", #"{"userId":"u1","text":"hello"}"#)] {
            var request = URLRequest(url: URL(string: base.absoluteString + path)!)
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
            let (_, status) = try await HTTPTransport.data(for: request)
            #expect(status == 201 || status == 200, "\(path): \(status)")
        }
        let backup = directory + "/../backup-\(UUID().uuidString).sqlite"
        let backedUp = try await CLI.run(["backup", "--data-dir", directory, "--to", backup])
        #expect(backedUp.status == 0 && backedUp.stdout.contains("each with a new epoch"), "\(backedUp.stdout)\(backedUp.stderr)")
        #expect(FileManager.default.fileExists(atPath: backup))
        let again = try await CLI.run(["backup", "--data-dir", directory, "--to", backup])
        #expect(again.status != 0 && again.stderr.contains("exists"), "\(again.stderr)")
        server.process.send(SIGTERM)
        try await withTimeout(.seconds(20), "serve stops") { try await server.waitForExit() }

        let url = try await TestEnvironment.freshPostgresDatabase(adminURL: admin)
        let migrated = try await CLI.run(["migrate", "--data-dir", directory, "--to", url])
        #expect(migrated.status == 0 && migrated.stdout.contains("(1 messages)") && migrated.stdout.contains("messages/s"), "\(migrated.stdout)\(migrated.stderr)")
        #expect(migrated.stderr.contains("events: ") && migrated.stderr.contains("verified"), "progress on stderr: \(migrated.stderr)")
        let twice = try await CLI.run(["migrate", "--data-dir", directory, "--to", url])
        #expect(twice.status == 1 && twice.stderr.contains("already holds Greenroom data"), "\(twice.stderr)")
        let renewed = try await CLI.run(["renew-epochs", "--database", url])
        #expect(renewed.status == 0 && renewed.stdout.contains("streams have a new epoch"), "\(renewed.stdout)\(renewed.stderr)")
        let neither = try await CLI.run(["renew-epochs"])
        #expect(neither.status != 0)
        let missing = try await CLI.run(["migrate", "--data-dir", directory + "/nothing", "--to", url])
        #expect(missing.status == 1 && missing.stderr.contains("no Greenroom database"), "\(missing.stderr)")
        await TestEnvironment.dropPostgresDatabase(url, adminURL: admin)
    }
}
