import Foundation
import Greenroom
@testable import GreenroomServer
import Testing

/// Runs `body` with a server that runs its own Janus (as `greenroom serve --media` does),
/// ICE on loopback, once its Janus session is open. Media tests (Janus, headless browsers)
/// have the machine to themselves, like the other heavy tests.
func withMediaServer<T: Sendable>(_ programs: MediaPrograms, _ configure: (inout ServerConfiguration) -> Void = { _ in },
                                  _ body: (TestServer) async throws -> T) async throws -> T {
    try await HeavyTests.run {
        try await withServer({ config in
            config.janusExecutable = programs.janus
            config.mediaICEInterfaces = "lo"
            configure(&config)
        }) { server in
            try await eventually("the server's Janus is up", timeout: .seconds(30)) { server.mediaReady }
            return try await body(server)
        }
    }
}

extension TestServer {
    /// The demo page's URL for a meeting participant.
    /// `host` names the server as the browser reaches it (loopback by default).
    func demoURL(_ user: String, meeting: String, participant: String, mode: String, extra: String = "", host: String? = nil) async throws -> String {
        let token = try await token(user)
        let base = host.map { "http://\($0):\(port)" } ?? url.absoluteString
        return "\(base)/demo/?join=1&token=\(token)&meeting=\(meeting)&participant=\(participant)&mode=\(mode)\(extra)"
    }

    /// Whether the server has a session open on each of its Janus servers.
    var mediaReady: Bool {
        let gateways = server.core.media.gateways
        return !gateways.isEmpty && gateways.allSatisfy(\.isReady)
    }

    /// The ids of the feeds Janus has in the room of `stream`.
    func publishersOnSFU(_ stream: String) async throws -> [UInt64] {
        try await server.core.media.publishersOnSFU(stream)
    }
}

extension JanusGateway {
    /// Whether this Janus has a VideoRoom numbered `room`.
    func hasRoom(_ room: UInt64) async throws -> Bool {
        let handle = try await attach { _ in }
        defer { Task { await detach(handle) } }
        return try await plugin(handle, ["request": "exists", "room": .number(Double(room))]).data["exists"]?.boolValue == true
    }
}

/// An offer that is not SDP: refused by Janus itself when it gets that far.
let notAnOffer = SessionDescription(type: "offer", sdp: "v=0\r\nthis is not a session description\r\n")
