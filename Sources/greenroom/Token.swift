import ArgumentParser
import Foundation
import GreenroomServer

/// `greenroom token USER_ID`: prints a client token signed with the data directory's app secret.
struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print an HS256 client token for a user.")

    @Argument(help: "The user id (the token's subject).") var userId: String
    @Option(name: .customLong("data-dir"), help: "Data directory holding the app secret (GREENROOM_DATA_DIR, default ./greenroom-data).") var dataDir: String?
    @Option(help: "Seconds until the token expires (default 86400).") var ttl: Double = 86_400
    @Option(name: .customLong("grant"), help: "A grant, e.g. app:scores or app:*; repeat for more.") var grants: [String] = []

    func run() async throws {
        let directory = CLIDataDirectory.resolve(dataDir)
        print(try await CLIToken.make(userId: userId, dataDir: directory, ttl: ttl, grants: grants))
    }
}

enum CLIToken {
    static func make(userId: String, dataDir: String, ttl: Double, grants: [String]) async throws -> String {
        guard ttl > 0 else { throw ValidationError("--ttl must be positive") }
        let secret = try Secrets.readAppSecret(in: dataDir)
        return try await TokenService(secret: secret).issue(userId: userId, ttl: ttl, grants: grants)
    }
}
