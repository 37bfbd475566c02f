import Foundation
import Logging
import ServiceLifecycle

/// The SFU a server uses, chosen by configuration: none (media operations answer
/// `unavailable`), a Janus it runs itself (``ServerConfiguration/janusExecutable``), or an
/// external one (``ServerConfiguration/janusURL``).
struct MediaBackend: Sendable {
    let gateway: JanusGateway?
    let process: JanusProcess?

    static let none = MediaBackend(gateway: nil, process: nil)

    static func open(_ configuration: ServerConfiguration, logger: Logger) throws -> MediaBackend {
        if let executable = configuration.janusExecutable {
            let process = try JanusProcess(
                executable: executable, directory: configuration.dataDirectory + "/janus",
                iceInterfaces: configuration.mediaICEInterfaces, logger: logger)
            return MediaBackend(gateway: JanusGateway(url: process.url, logger: logger), process: process)
        }
        if let url = configuration.janusURL {
            return MediaBackend(gateway: JanusGateway(url: url, logger: logger), process: nil)
        }
        return .none
    }

    /// Its services, in starting order: Janus, then the connection to it.
    var services: [any Service] {
        [process as (any Service)?, gateway].compactMap { $0 }
    }
}
