import ArgumentParser

/// The `greenroom` command: run the server, make tokens, talk to a server.
@main
struct GreenroomCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "greenroom",
        abstract: "A self-hosted realtime server: chat, live events, stages and video feeds over one WebSocket.",
        subcommands: [Serve.self, Token.self, Call.self, Listen.self, Bench.self, Migrate.self, Backup.self, RenewEpochs.self])
}
