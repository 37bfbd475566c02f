import Foundation
import GreenroomStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How clients reach the media server from behind NATs and firewalls: the STUN servers and
/// the TURN servers (coturn) Greenroom hands them, with TURN credentials it issues, and the
/// NAT settings of the Janus it runs.
public struct MediaNetworkSettings: Sendable, Hashable {
    /// TURN URLs handed to clients allowed media in a room (`GREENROOM_TURN_URLS`, comma
    /// separated; `serve --turn-url`, repeated), e.g. `turn:turn.example.com:3478?transport=udp`,
    /// `turn:turn.example.com:3478?transport=tcp`, `turns:turn.example.com:443?transport=tcp`.
    public var turnURLs: [String] = []
    /// The secret shared with coturn (its `static-auth-secret`, with `use-auth-secret`):
    /// credentials follow coturn's REST API scheme, a user name `<expiry>:<user id>` and a
    /// password `base64(HMAC-SHA1(secret, user name))` (`GREENROOM_TURN_SECRET`, `serve --turn-secret`).
    public var turnSecret: String?
    /// How long a TURN credential is accepted for new allocations, in seconds
    /// (`GREENROOM_TURN_TTL_SECONDS`, default an hour; 60 s – 1 day). An allocation made in
    /// time lasts while it is refreshed.
    public var turnCredentialLifetime: TimeInterval = 3_600
    /// STUN URLs handed to clients besides TURN (`GREENROOM_STUN_URLS`, comma separated), e.g.
    /// `stun:stun.example.com:3478`.
    public var stunURLs: [String] = []
    /// The public address of a media server behind a one-to-one NAT (a cloud instance's
    /// elastic IP): the Janus Greenroom runs announces it in its candidates, Janus's
    /// `nat_1_1_mapping` (`GREENROOM_MEDIA_PUBLIC_IP`, `serve --media-public-ip`).
    public var publicAddress: String?
    /// A STUN server the Janus Greenroom runs asks for its public address, `host:port`
    /// (`GREENROOM_MEDIA_STUN_SERVER`, `serve --media-stun-server`); not needed with
    /// ``publicAddress``.
    public var janusSTUNServer: String?
    /// The most a publisher may send of its video in each room, in kilobits a second: Janus's
    /// VideoRoom `bitrate`, which it tells the sender (REMB) and caps (`bitrate_cap`), for
    /// the SFU's and the receivers' sake (`GREENROOM_MEDIA_MAX_BITRATE_KBPS`,
    /// `serve --media-max-bitrate`; 32–20000). `nil`: no cap, the sender's own estimate.
    /// Rooms made before a change keep the cap they were made with.
    public var maxPublisherBitrate: Int?

    /// The default settings: no STUN, no TURN, no NAT mapping.
    public init() {}

    /// Whether TURN credentials are issued.
    public var issuesTURN: Bool { !turnURLs.isEmpty && turnSecret != nil }

    /// Reads the `GREENROOM_TURN_*`, `GREENROOM_STUN_URLS` and `GREENROOM_MEDIA_*` NAT variables
    /// into `settings`, and the bitrate cap
    /// (`GREENROOM_MEDIA_MAX_BITRATE_KBPS`).
    package static func read(_ variables: EnvironmentVariables, into settings: inout MediaNetworkSettings) throws {
        settings.turnURLs = variables.list("GREENROOM_TURN_URLS") ?? settings.turnURLs
        settings.turnSecret = variables.text("GREENROOM_TURN_SECRET") ?? settings.turnSecret
        if let seconds: Double = try variables.value("GREENROOM_TURN_TTL_SECONDS") { settings.turnCredentialLifetime = seconds }
        settings.stunURLs = variables.list("GREENROOM_STUN_URLS") ?? settings.stunURLs
        settings.publicAddress = variables.text("GREENROOM_MEDIA_PUBLIC_IP") ?? settings.publicAddress
        settings.janusSTUNServer = variables.text("GREENROOM_MEDIA_STUN_SERVER") ?? settings.janusSTUNServer
        if let kbps: Int = try variables.value("GREENROOM_MEDIA_MAX_BITRATE_KBPS") { settings.maxPublisherBitrate = kbps }
    }

    /// Checks the URLs' schemes, the bitrate cap's range, that TURN URLs come with a secret (and a secret with URLs),
    /// the lifetime's range and the NAT settings' forms.
    package func validate() throws {
        for url in turnURLs where !(url.hasPrefix("turn:") || url.hasPrefix("turns:")) {
            throw GreenroomServerError.invalidConfiguration("a TURN URL must begin with turn: or turns: (\(url))")
        }
        for url in stunURLs where !url.hasPrefix("stun:") {
            throw GreenroomServerError.invalidConfiguration("a STUN URL must begin with stun: (\(url))")
        }
        if turnURLs.isEmpty != (turnSecret == nil) {
            throw GreenroomServerError.invalidConfiguration("TURN needs both its URLs (GREENROOM_TURN_URLS) and coturn's secret (GREENROOM_TURN_SECRET)")
        }
        if let turnSecret, turnSecret.count < 16 {
            throw GreenroomServerError.invalidConfiguration("the TURN secret must be at least 16 characters")
        }
        guard (60...86_400).contains(turnCredentialLifetime) else {
            throw GreenroomServerError.invalidConfiguration("the TURN credential lifetime must be 60–86400 seconds")
        }
        if let maxPublisherBitrate, !(32...20_000).contains(maxPublisherBitrate) {
            throw GreenroomServerError.invalidConfiguration("the media bitrate cap must be 32–20000 kbps")
        }
        if let publicAddress, !Self.isIPv4(publicAddress) {
            throw GreenroomServerError.invalidConfiguration("the media server's public address must be an IPv4 address (\(publicAddress))")
        }
        if let janusSTUNServer {
            let parts = janusSTUNServer.split(separator: ":")
            guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65_535).contains(port) else {
                throw GreenroomServerError.invalidConfiguration("Janus's STUN server must be host:port (\(janusSTUNServer))")
            }
        }
    }

    private static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }
}
