import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage
import JWTKit
import Logging

/// What one device is sent: the alert, computed when the message's push is fanned out.
package struct PushMessage: Codable, Sendable, Hashable {
    /// The user the device belongs to (a device APNs no longer knows is removed from them).
    package var userId: String
    package var title: String
    package var body: String
    /// `thread-id`: the channel, so that the phone groups its notifications.
    package var threadId: String
    /// `apns-collapse-id`: a newer notification with the same id replaces this one.
    package var collapseId: String
    /// The ids the app needs to open the right screen.
    package var data: [String: String]
    /// The app icon's badge: the user's unread messages in all its channels.
    package var badge: Int?
}

/// APNs as a destination of the outbox: a message's push (queued in the transaction that
/// stores the message) is fanned out to the devices of the members who should get it, then
/// each device's push is sent over HTTP/2 with a token signed by the app's key. It is its
/// own family of destinations: one, whose jobs are dropped after their last attempt (a
/// notification that late is of no use).
package final class PushSender: OutboxDestination, OutboxDestinations, Sendable {
    /// The scope push jobs are kept in.
    package static let destinationId = "apns"
    /// The event types that push: a new chat message, an invitation to a channel.
    package static let types: Set<String> = [ChatEventType.messageNew, ChatEventType.channelInvited]
    /// APNs refuses alerts over 4 KB; bodies are cut well before.
    package static let bodyLimit = 178

    package let id = PushSender.destinationId
    package let settings: PushSettings
    package let storage: any GreenroomStorage
    package let events: EventLog
    package let logger: Logger
    package let metrics: PushMetrics
    private let keys = JWTKeyCollection()
    private let keyLoaded = Locked<Bool>(false)
    /// The provider token: APNs wants it renewed within the hour, and not more often than
    /// every 20 minutes, so one is made at a time and shared.
    private let tokens = ProviderTokens()
    /// The server's HTTP/2 client for APNs.
    private let http: any OutboundHTTP
    package static let tokenLifetime: TimeInterval = 50 * 60

    package init(settings: PushSettings, storage: any GreenroomStorage, events: EventLog, http: any OutboundHTTP, metrics: PushMetrics, logger: Logger) {
        self.settings = settings
        self.http = http
        self.storage = storage
        self.events = events
        self.metrics = metrics
        self.logger = logger
        events.outbox.setRoutes([OutboxRoute(destinationId: Self.destinationId, wants: Self.types.contains)], of: Self.destinationId)
    }

    package var current: [any OutboxDestination] { [self] }

    package func park(_ job: OutboxJobRecord, failure: String, in transaction: any StorageTransaction) async throws {}

    package func deliver(_ job: OutboxJobRecord) async -> DeliveryOutcome {
        do {
            guard let message = try job.payload?.decode(as: PushMessage.self), let device = job.ownLane else {
                try await fanOut(job)
                return .replaced
            }
            return try await send(message, to: device, job: job)
        } catch {
            return .failed("\(error)")
        }
    }

    /// Shuts the HTTP client down (it is made on the first push).
    package func shutdown() async {
        await http.shutdown()
    }

    // MARK: Sending to a device

    private func send(_ message: PushMessage, to device: String, job: OutboxJobRecord) async throws -> DeliveryOutcome {
        let request = OutboundRequest(url: "\(settings.baseURL)/3/device/\(device)", headers: [
            ("authorization", "bearer \(try await providerToken())"),
            ("apns-topic", settings.topic ?? ""),
            ("apns-push-type", "alert"),
            ("apns-priority", "10"),
            // Not worth showing a day later.
            ("apns-expiration", String(Int64(job.event.at.timeIntervalSince1970) + 86_400)),
            ("apns-collapse-id", message.collapseId),
            ("content-type", "application/json"),
        ], body: try Self.payload(message), timeout: 10)
        let answer = try await http.post(request, answerLimit: 16 * 1024)
        let reason = (try? RawJSON(json: answer.body))?["reason"]?.stringValue ?? ""
        let status = answer.status
        let gone = status == 410 || (status == 400 && (reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic"))
        switch status {
        case 200:
            metrics.sent()
            return .delivered
        case _ where gone:
            // The app was removed, or the token was never good for this app: forget the device.
            _ = try await events.transact { transaction in
                try await UserService.forgetDevice(device, of: message.userId, in: transaction)
            }
            metrics.unregistered()
            logger.info("APNs answered \(status) \(reason) for a device of \(message.userId): removed")
            return .delivered
        default:
            if status == 403, reason == "ExpiredProviderToken" || reason == "InvalidProviderToken" {
                await tokens.forget()
            }
            metrics.failed()
            return .failed("APNs \(status) \(reason)")
        }
    }

    /// The JSON APNs gets for a message: the alert and the badge in `aps`, the app's ids beside it.
    package static func payload(_ message: PushMessage) throws -> Data {
        var aps: [String: RawJSON] = ["alert": ["title": .string(message.title), "body": .string(message.body)],
                                      "thread-id": .string(message.threadId), "sound": "default"]
        if let badge = message.badge { aps["badge"] = .number(Double(badge)) }
        var root: [String: RawJSON] = ["aps": .dictionary(aps)]
        for (key, value) in message.data { root[key] = .string(value) }
        return try RawJSON.dictionary(root).jsonData()
    }

    /// The provider token: an ES256 JWT with the key's id and the team, reused until it
    /// is 50 minutes old.
    private func providerToken() async throws -> String {
        try await tokens.current(lifetime: Self.tokenLifetime) { [keys, keyLoaded, settings] in
            if !keyLoaded.withLock({ $0 }) {
                let pem = try String(contentsOfFile: settings.keyPath ?? "", encoding: .utf8)
                await keys.add(ecdsa: try ES256PrivateKey(pem: pem), kid: JWKIdentifier(string: settings.keyId ?? ""))
                keyLoaded.withLock { $0 = true }
            }
            return try await keys.sign(ProviderClaims(iss: IssuerClaim(value: settings.teamId ?? ""), iat: IssuedAtClaim(value: Date())),
                                       kid: JWKIdentifier(string: settings.keyId ?? ""))
        }
    }
}

/// The provider token in use, made by one caller at a time: the others wait for it.
package actor ProviderTokens {
    private var token: (value: String, madeAt: Date)?
    private var making: Task<String, any Error>?

    /// The token, made with `make` when there is none or it is older than `lifetime`.
    package func current(lifetime: TimeInterval, make: @escaping @Sendable () async throws -> String) async throws -> String {
        if let token, Date().timeIntervalSince(token.madeAt) < lifetime { return token.value }
        if let making { return try await making.value }
        let task = Task { try await make() }
        making = task
        defer { making = nil }
        let value = try await task.value
        token = (value, Date())
        return value
    }

    /// Drops the token (APNs said it expired or is not valid): the next push makes one.
    package func forget() { token = nil }
}

/// The claims of an APNs provider token.
package struct ProviderClaims: JWTPayload {
    package var iss: IssuerClaim
    package var iat: IssuedAtClaim

    package func verify(using algorithm: some JWTAlgorithm) async throws {}
}
