import Foundation
import GreenroomProtocol
import GreenroomStorage

/// How the server delivers webhooks to the app's backend.
public struct WebhookSettings: Sendable, Hashable {
    /// An endpoint given by configuration, for the simple case (`GREENROOM_WEBHOOK_URL`);
    /// kept as the endpoint with id `config` and replaced when the setting changes. More are
    /// registered over REST (`POST /v1/webhooks`).
    public var url: String?
    /// The secret the configured endpoint's deliveries are signed with
    /// (`GREENROOM_WEBHOOK_SECRET`, at least 16 characters; required with ``url``).
    public var secret: String?
    /// The event types the configured endpoint receives (`GREENROOM_WEBHOOK_EVENTS`, comma
    /// separated: `message.new`, `message.*`, `*`; default every type).
    public var events: [String] = ["*"]
    /// How long an attempt waits for the endpoint's answer (`GREENROOM_WEBHOOK_TIMEOUT_SECONDS`, default 10).
    public var timeout: TimeInterval = 10
    /// Attempts before a delivery is parked (`GREENROOM_WEBHOOK_MAX_ATTEMPTS`, default 10).
    public var maxAttempts: Int = 10
    /// The wait before the first retry; it doubles each attempt, up to ``retryCap``, with
    /// ±20% jitter (`GREENROOM_WEBHOOK_RETRY_SECONDS`, default 2).
    public var retryBase: TimeInterval = 2
    /// The longest wait between attempts (`GREENROOM_WEBHOOK_RETRY_CAP_SECONDS`, default 600).
    public var retryCap: TimeInterval = 600
    /// How many deliveries a node makes at once (each to a different stream; default 32).
    public var concurrency: Int = 32
    /// Whether endpoints may be on loopback, link-local, private or other non-public
    /// addresses (`GREENROOM_WEBHOOK_ALLOW_PRIVATE=1`; default no, see SECURITY.md): for a
    /// backend on the same machine or private network.
    public var allowPrivateAddresses = false

    /// The default settings.
    public init() {}

    /// Reads the `GREENROOM_WEBHOOK_*` variables into `settings`.
    package static func read(_ variables: EnvironmentVariables, into settings: inout WebhookSettings) throws {
        settings.url = variables.text("GREENROOM_WEBHOOK_URL") ?? settings.url
        settings.secret = variables.text("GREENROOM_WEBHOOK_SECRET") ?? settings.secret
        settings.events = variables.list("GREENROOM_WEBHOOK_EVENTS") ?? settings.events
        settings.timeout = try variables.value("GREENROOM_WEBHOOK_TIMEOUT_SECONDS") ?? settings.timeout
        settings.maxAttempts = try variables.value("GREENROOM_WEBHOOK_MAX_ATTEMPTS") ?? settings.maxAttempts
        settings.retryBase = try variables.value("GREENROOM_WEBHOOK_RETRY_SECONDS") ?? settings.retryBase
        settings.retryCap = try variables.value("GREENROOM_WEBHOOK_RETRY_CAP_SECONDS") ?? settings.retryCap
        settings.allowPrivateAddresses = try variables.flag("GREENROOM_WEBHOOK_ALLOW_PRIVATE") ?? settings.allowPrivateAddresses
    }

    /// Checks that every setting is in range.
    package func validate() throws {
        if let url {
            try checkURL(url)
            guard let secret, secret.count >= 16 else {
                throw GreenroomServerError.invalidConfiguration("a webhook URL needs GREENROOM_WEBHOOK_SECRET, at least 16 characters")
            }
        }
        guard !events.isEmpty, events.allSatisfy(WebhookEndpoint.isValidPattern) else {
            throw GreenroomServerError.invalidConfiguration("webhook events must be types, families (message.*) or *")
        }
        guard timeout > 0, timeout <= 120 else { throw GreenroomServerError.invalidConfiguration("the webhook timeout must be 0–120 seconds") }
        guard (1...100).contains(maxAttempts) else { throw GreenroomServerError.invalidConfiguration("webhook attempts must be 1–100") }
        guard retryBase > 0, retryCap >= retryBase, retryCap <= 86_400 else {
            throw GreenroomServerError.invalidConfiguration("webhook retry waits must be positive, the cap at least the base and at most a day")
        }
        guard (1...1_000).contains(concurrency) else { throw GreenroomServerError.invalidConfiguration("webhook concurrency must be 1–1000") }
    }

    /// Throws unless `url` is an absolute `http` or `https` URL with a host, and, unless
    /// ``allowPrivateAddresses``, a host that is no refused IP address (``WebhookAddressGuard``).
    package func checkURL(_ url: String) throws {
        guard url.count <= 2_000, let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = parsed.host, !host.isEmpty else {
            throw GreenroomError(.invalidParameterValue, "a webhook URL must be an absolute http:// or https:// URL")
        }
        if !allowPrivateAddresses, let refusal = WebhookAddressGuard.literalRefusal(host) {
            throw GreenroomError(.invalidParameterValue,
                                 "a webhook may not be sent to \(refusal) (GREENROOM_WEBHOOK_ALLOW_PRIVATE=1 allows it)")
        }
    }
}

extension WebhookSettings {
    /// How the outbox retries every destination's jobs (webhooks' and APNs').
    package var deliveryPolicy: OutboxPolicy {
        OutboxPolicy(timeout: timeout, maxAttempts: maxAttempts, retryBase: retryBase, retryCap: retryCap, concurrency: concurrency)
    }
}
