import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension GreenroomClient {
    /// Marks the message a push notification names delivered to the user, from a
    /// notification service extension, without opening a WebSocket (Sendbird's
    /// `GroupChannel.markAsDelivered(remoteNotificationPayload:)`): one REST call with the
    /// user's client token. `payload` is the notification's `userInfo`; its `channelId` and
    /// `messageId` (Greenroom's pushes carry them) name the message.
    ///
    /// ```swift
    /// try await GreenroomClient.markAsDelivered(remoteNotificationPayload: request.content.userInfo,
    ///                                           serverURL: serverURL, token: storedToken)
    /// ```
    @discardableResult
    public static func markAsDelivered(remoteNotificationPayload payload: [AnyHashable: Any], serverURL: URL, token: String) async throws -> ChannelRead {
        guard let channelId = payload["channelId"] as? String, let messageId = payload["messageId"] as? String, !messageId.isEmpty else {
            throw GreenroomError(.invalidParameterValue, "the notification names no channelId and messageId")
        }
        return try await markAsDelivered(channelId: ChannelId(channelId), messageId: messageId, serverURL: serverURL, token: token)
    }

    /// Marks `messageId` of a channel delivered to the token's user over REST
    /// (`POST /v1/channels/{id}/delivered`). - Throws: the server's `GreenroomError`.
    @discardableResult
    public static func markAsDelivered(channelId: ChannelId, messageId: String, serverURL: URL, token: String) async throws -> ChannelRead {
        // Channel ids are letters, digits and `_-.@`: nothing in them needs escaping.
        let path = "/v1/channels/\(channelId.rawValue)/delivered"
        var request = URLRequest(url: ClientConfiguration(serverURL: serverURL).httpURL(path))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try RawJSON.dictionary(["messageId": .string(messageId)]).jsonData()
        let (data, status) = try await HTTPTransport.data(for: request)
        guard (200..<300).contains(status) else { throw HTTPTransport.failure(data, status: status, from: path) }
        return try WireCoding.decode(ChannelRead.self, from: data)
    }
}
