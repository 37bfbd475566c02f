import Foundation
import Logging
import ServiceLifecycle

/// The SFUs a server uses, chosen by configuration: none (media operations answer
/// `unavailable`), a Janus it runs itself (``ServerConfiguration/janusExecutable``), or
/// external ones (``ServerConfiguration/janusURLs``).
struct MediaBackend: Sendable {
    /// A connection to each Janus, in configured order.
    let gateways: [JanusGateway]
    let process: JanusProcess?

    static let none = MediaBackend(gateways: [], process: nil)

    static func open(_ configuration: ServerConfiguration, logger: Logger) throws -> MediaBackend {
        if let executable = configuration.janusExecutable {
            let process = try JanusProcess(
                executable: executable, directory: configuration.dataDirectory + "/janus",
                iceInterfaces: configuration.mediaICEInterfaces, network: configuration.mediaNetwork, logger: logger)
            return MediaBackend(gateways: [JanusGateway(url: process.url, connector: JanusWebSocketConnector(), logger: logger)], process: process)
        }
        return MediaBackend(gateways: configuration.janusURLs.map { JanusGateway(url: $0, connector: JanusWebSocketConnector(), logger: logger) }, process: nil)
    }

    /// Its services, in starting order: Janus, then the connections to it.
    var services: [any Service] {
        [process as (any Service)?].compactMap { $0 } + gateways.map { $0 as any Service }
    }
}
