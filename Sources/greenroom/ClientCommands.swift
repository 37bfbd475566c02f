import ArgumentParser
import Foundation
import Greenroom
import NIOSSL

/// Options shared by the commands that talk to a server as a user.
struct ClientOptions: ParsableArguments {
    @Option(help: "The server (default http://127.0.0.1:8080, or GREENROOM_SERVER).") var server: String?
    @Option(help: "Act as this user (a token is made from the data directory's secret).") var user: String?
    @Option(help: "Use this token instead of making one.") var token: String?
    @Option(name: .customLong("data-dir"), help: "Data directory holding the app secret (default ./greenroom-data).") var dataDir: String?
    @Option(name: .customLong("grant"), help: "A grant for the made token; repeat for more.") var grants: [String] = []
    @Option(name: .customLong("ca-cert"), help: "Trust the CA in this PEM file for an https:// server, e.g. one whose certificate your own CA signed (GREENROOM_CA_CERT); the system's trust store otherwise.") var caCert: String?

    func connect() async throws -> GreenroomClient {
        let serverText = server ?? ProcessInfo.processInfo.environment["GREENROOM_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: serverText) else { throw ValidationError("--server is not a URL") }
        let tokenText: String
        if let token {
            tokenText = token
        } else if let user {
            let directory = CLIDataDirectory.resolve(dataDir)
            tokenText = try await CLIToken.make(userId: user, dataDir: directory, ttl: 3600, grants: grants)
        } else {
            throw ValidationError("give --user USER_ID or --token TOKEN")
        }
        var configuration = ClientConfiguration(serverURL: url)
        if let path = caCert ?? ProcessInfo.processInfo.environment["GREENROOM_CA_CERT"] {
            do {
                configuration.tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(path))
            } catch {
                throw ValidationError("--ca-cert \(path) is not a readable PEM certificate: \(error)")
            }
        }
        let client = GreenroomClient(configuration: configuration)
        try await client.connect(token: tokenText)
        return client
    }
}

/// `greenroom call OPERATION [JSON]`: sends one command and prints the reply.
struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send one command as a user and print the reply as JSON (exit 1 and the error on stderr on failure).")

    @Argument(help: "The operation, e.g. user.me or stream.subscribe.") var operation: String
    @Argument(help: "The arguments as a JSON object.") var json: String?
    @OptionGroup var options: ClientOptions

    func run() async throws {
        let args: RawJSON?
        do {
            args = try json.map { try RawJSON(json: $0) }
        } catch {
            throw ValidationError("the arguments are not valid JSON: \(error)")
        }
        let client = try await options.connect()
        defer { Task { await client.disconnect() } }
        do {
            let result = try await client.sendRaw(operation, args: args)
            print(try result.jsonString())
            await client.disconnect()
        } catch {
            await client.disconnect()
            StandardStreams.err("error: \(error)\n")
            throw ExitCode(1)
        }
    }
}

/// `greenroom listen STREAM`: prints each event as one JSON line.
struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Subscribe to a stream and print each event as one JSON line.")

    @Argument(help: "The stream, e.g. user:alice or app:scores.") var stream: String
    @Option(help: "Replay the events after this offset first.") var since: UInt64?
    @Option(help: "Stop after this many events.") var count: Int?
    @OptionGroup var options: ClientOptions

    func run() async throws {
        let client = try await options.connect()
        let subscription: StreamSubscription
        do {
            subscription = try await client.subscribe(to: stream, since: since.map { StreamPosition(offset: $0, epoch: nil) })
        } catch {
            StandardStreams.err("error: \(error)\n")
            await client.disconnect()
            throw ExitCode(1)
        }
        if since != nil && !subscription.recovered {
            StandardStreams.err("warning: the log no longer holds every event after --since\n")
        }
        var seen = 0
        for await update in subscription.updates {
            switch update {
            case .event(let event):
                let written = StandardStreams.out(try WireCoding.encode(event) + Data("\n".utf8))
                seen += 1
                if !written || count.map({ seen >= $0 }) == true {
                    await client.disconnect()
                    return
                }
            case .resubscribed(let recovered):
                if !recovered { StandardStreams.err("warning: events were missed while reconnecting\n") }
            }
        }
    }
}
