import Foundation
import GreenroomProtocol
import GreenroomStorage

/// Push notifications through Apple's APNs, with token-based authentication.
public struct PushSettings: Sendable, Hashable {
    /// Which APNs a server pushes through.
    public enum Environment: String, Sendable, Hashable {
        /// `api.sandbox.push.apple.com`: development builds of the app.
        case sandbox
        /// `api.push.apple.com`: App Store and TestFlight builds.
        case production
    }

    /// The `.p8` file with the APNs signing key from the Apple Developer account
    /// (`GREENROOM_APNS_KEY`); push is off without it.
    public var keyPath: String?
    /// The key's id, ten characters (`GREENROOM_APNS_KEY_ID`).
    public var keyId: String?
    /// The Apple Developer team id (`GREENROOM_APNS_TEAM_ID`).
    public var teamId: String?
    /// The app's bundle id, APNs's `apns-topic` (`GREENROOM_APNS_TOPIC`).
    public var topic: String?
    /// Sandbox or production (`GREENROOM_APNS_ENVIRONMENT`, default production).
    public var environment: Environment = .production
    /// Another APNs address than the environment's, e.g. a relay
    /// (`GREENROOM_APNS_URL`, `https://host:port`).
    public var url: String?
    /// A PEM file of the certificates that sign that address's certificate, trusted besides the
    /// system's (`GREENROOM_APNS_CA_CERT`).
    public var caCertificatePath: String?

    /// The default settings: push off.
    public init() {}

    /// Whether push is set up.
    public var isEnabled: Bool { keyPath != nil }

    /// The APNs base URL in use.
    public var baseURL: String {
        url ?? (environment == .sandbox ? "https://api.sandbox.push.apple.com" : "https://api.push.apple.com")
    }

    /// Reads the `GREENROOM_APNS_*` variables into `settings`.
    package static func read(_ variables: EnvironmentVariables, into settings: inout PushSettings) throws {
        settings.keyPath = variables.text("GREENROOM_APNS_KEY") ?? settings.keyPath
        settings.keyId = variables.text("GREENROOM_APNS_KEY_ID") ?? settings.keyId
        settings.teamId = variables.text("GREENROOM_APNS_TEAM_ID") ?? settings.teamId
        settings.topic = variables.text("GREENROOM_APNS_TOPIC") ?? settings.topic
        settings.url = variables.text("GREENROOM_APNS_URL") ?? settings.url
        settings.caCertificatePath = variables.text("GREENROOM_APNS_CA_CERT") ?? settings.caCertificatePath
        if let value = variables.text("GREENROOM_APNS_ENVIRONMENT") {
            guard let parsed = Environment(rawValue: value) else {
                throw GreenroomServerError.invalidConfiguration("GREENROOM_APNS_ENVIRONMENT must be sandbox or production")
            }
            settings.environment = parsed
        }
    }

    /// Checks that push, when set up, has everything it needs.
    package func validate() throws {
        guard isEnabled else { return }
        guard keyId?.isEmpty == false, teamId?.isEmpty == false, topic?.isEmpty == false else {
            throw GreenroomServerError.invalidConfiguration("APNs needs the key's id, the team id and the topic (the app's bundle id) with its key")
        }
        if let url {
            guard let parsed = URL(string: url), parsed.scheme == "https", parsed.host?.isEmpty == false else {
                throw GreenroomServerError.invalidConfiguration("the APNs URL must be https://host[:port]")
            }
        }
    }
}
